import type { CodingRule } from '@svc/client';
import { useState } from 'react';
import { ConfirmInline } from '../../../components/ConfirmInline';

interface RuleRowActionsProps {
  rule: CodingRule;
  /** Whether it is (or is being made) enabled. */
  enabled: boolean;
  first: boolean;
  last: boolean;
  /** A change to the rules is under way: the other controls wait. */
  busy: boolean;
  deleting: boolean;
  onEnabled: (enabled: boolean) => void;
  onMove: (by: -1 | 1) => void;
  onDelete: () => void;
}

/** An admin's controls on one rule: enabled, earlier or later in precedence, delete (confirmed in place). */
export function RuleRowActions({
  rule,
  enabled,
  first,
  last,
  busy,
  deleting,
  onEnabled,
  onMove,
  onDelete,
}: RuleRowActionsProps) {
  const [confirming, setConfirming] = useState(false);
  if (confirming) {
    return (
      <ConfirmInline
        question={`Delete ${rule.name}?`}
        warning="It applies no more; the values it set stay on their lines."
        confirm="Yes, delete"
        confirmAccessibleName={`Yes, delete ${rule.name}`}
        busyLabel="Deleting…"
        busy={deleting}
        danger
        onConfirm={onDelete}
        onCancel={() => setConfirming(false)}
      />
    );
  }
  return (
    <div className="row-actions">
      <label className="check">
        <input
          type="checkbox"
          checked={enabled}
          disabled={busy}
          aria-label={`Enabled: ${rule.name}`}
          onChange={(e) => onEnabled(e.target.checked)}
        />
        <span aria-hidden="true">Enabled</span>
      </label>
      <button type="button" disabled={busy || first} aria-label={`Move ${rule.name} up`} onClick={() => onMove(-1)}>
        Up
      </button>
      <button type="button" disabled={busy || last} aria-label={`Move ${rule.name} down`} onClick={() => onMove(1)}>
        Down
      </button>
      <button
        type="button"
        className="button-danger"
        disabled={busy}
        aria-label={`Delete ${rule.name}`}
        onClick={() => setConfirming(true)}
      >
        Delete
      </button>
    </div>
  );
}
