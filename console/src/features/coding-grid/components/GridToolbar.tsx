import { useId } from 'react';
import { plural } from '../../../lib/format';

export type GridStatus = 'REVIEW' | 'PREPARE';

interface GridFiltersProps {
  status: GridStatus;
  vendor: string;
  disabled: boolean;
  onStatus: (status: GridStatus) => void;
  onVendor: (vendor: string) => void;
}

/** Which lines the grid shows: records in Review or in Prepare, of vendors whose name contains the text. */
export function GridFilters({ status, vendor, disabled, onStatus, onVendor }: GridFiltersProps) {
  const id = useId();
  return (
    <div className="grid-filters" role="search" aria-label="Lines to code">
      <label htmlFor={`${id}-status`}>Status</label>
      <select
        id={`${id}-status`}
        value={status}
        disabled={disabled}
        onChange={(e) => onStatus(e.target.value === 'PREPARE' ? 'PREPARE' : 'REVIEW')}
      >
        <option value="REVIEW">Review</option>
        <option value="PREPARE">Prepare</option>
      </select>
      <label htmlFor={`${id}-vendor`}>Vendor</label>
      <input
        id={`${id}-vendor`}
        type="search"
        value={vendor}
        disabled={disabled}
        onChange={(e) => onVendor(e.target.value)}
      />
      {disabled && <p className="grid-hint">Save or discard the changes to see other lines.</p>}
    </div>
  );
}

interface GridActionsProps {
  changedRecords: number;
  selectedRows: number;
  saving: boolean;
  approving: boolean;
  /** "Approve selected", or in Prepare "Submit and approve selected" (through Review). */
  approveLabel: string;
  onAcceptAll: () => void;
  onApplyToSelected: () => void;
  onSave: () => void;
  onDiscard: () => void;
  onApprove: () => void;
}

/** What the grid's keys do, as buttons too. */
export function GridActions(p: GridActionsProps) {
  return (
    <div className="bulk-bar grid-actions" role="group" aria-label="Grid actions">
      <button type="button" onClick={p.onAcceptAll}>
        Accept all suggestions
      </button>
      <button type="button" disabled={p.selectedRows === 0} onClick={p.onApplyToSelected}>
        Apply to selected rows
      </button>
      <button type="button" className="button-primary" disabled={p.changedRecords === 0 || p.saving} onClick={p.onSave}>
        {p.saving ? 'Saving…' : 'Save changes'}
      </button>
      <button type="button" disabled={p.changedRecords === 0 || p.saving} onClick={p.onDiscard}>
        Discard changes
      </button>
      <button type="button" disabled={p.selectedRows === 0 || p.approving} onClick={p.onApprove}>
        {p.approveLabel}
      </button>
      <p className="bulk-count" aria-live="polite">
        {p.changedRecords === 0 ? 'No change' : `${plural(p.changedRecords, 'record')} changed`};{' '}
        {p.selectedRows === 0 ? 'no row selected' : `${plural(p.selectedRows, 'row')} selected`}
      </p>
    </div>
  );
}
