import { useId, useState, type FormEvent, type ReactNode } from 'react';
import {
  REVIEW_STATUS_LABELS,
  REVIEW_STATUSES,
  SOURCE_TYPE_LABELS,
  SOURCE_TYPES,
  isReviewStatus,
  isSourceType,
} from '../../../lib/labels';
import { formatDay } from '../../../lib/format';
import { isReceiptFilter, NO_FILTERS, PAGE_SIZES, type QueueFilters as Filters, type QueueView } from '../queue-params';

function Field({ label, children, id }: { label: string; id: string; children: ReactNode }) {
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {children}
    </div>
  );
}

/** The search's filters; applied together (the URL then carries them), or all cleared. */
export function QueueFilters({ view, onApply }: { view: QueueView; onApply: (view: QueueView) => void }) {
  const [filters, setFilters] = useState<Filters>(view.filters);
  const [limit, setLimit] = useState(view.limit);
  const id = useId();
  const set = <K extends keyof Filters>(name: K, value: Filters[K]) => setFilters((f) => ({ ...f, [name]: value }));

  const submit = (event: FormEvent) => {
    event.preventDefault();
    onApply({ ...view, filters, limit });
  };
  const clear = () => {
    setFilters(NO_FILTERS);
    onApply({ ...view, filters: NO_FILTERS });
  };
  const clearExportDay = () => {
    const next: Filters = { ...filters, exported_on: '', export_outcome: null };
    setFilters(next);
    onApply({ ...view, filters: next, limit });
  };

  return (
    <form className="filters" role="search" aria-label="Filter records" onSubmit={submit}>
      <div className="filters-search">
        <Field label="Search" id={`${id}-q`}>
          <input
            id={`${id}-q`}
            type="search"
            value={filters.q}
            aria-describedby={`${id}-q-hint`}
            onChange={(e) => set('q', e.target.value)}
          />
        </Field>
        <p className="hint" id={`${id}-q-hint`}>
          Record id, memo, vendor, invoice or bill number, or amount.
        </p>
      </div>
      <div className="filters-grid">
        <Field label="Review state" id={`${id}-status`}>
          <select
            id={`${id}-status`}
            value={filters.review_status ?? ''}
            onChange={(e) => set('review_status', isReviewStatus(e.target.value) ? e.target.value : null)}
          >
            <option value="">Any state</option>
            {REVIEW_STATUSES.map((status) => (
              <option key={status} value={status}>
                {REVIEW_STATUS_LABELS[status]}
              </option>
            ))}
          </select>
        </Field>
        <Field label="Source type" id={`${id}-source`}>
          <select
            id={`${id}-source`}
            value={filters.source_type ?? ''}
            onChange={(e) => set('source_type', isSourceType(e.target.value) ? e.target.value : null)}
          >
            <option value="">Any source</option>
            {SOURCE_TYPES.map((source) => (
              <option key={source} value={source}>
                {SOURCE_TYPE_LABELS[source]}
              </option>
            ))}
          </select>
        </Field>
        <Field label="Posted from" id={`${id}-from`}>
          <input
            id={`${id}-from`}
            type="date"
            value={filters.posted_from}
            onChange={(e) => set('posted_from', e.target.value)}
          />
        </Field>
        <Field label="Posted to" id={`${id}-to`}>
          <input
            id={`${id}-to`}
            type="date"
            value={filters.posted_to}
            onChange={(e) => set('posted_to', e.target.value)}
          />
        </Field>
        <Field label="Minimum amount" id={`${id}-min`}>
          <input
            id={`${id}-min`}
            type="number"
            inputMode="decimal"
            step="any"
            value={filters.amount_min}
            onChange={(e) => set('amount_min', e.target.value)}
          />
        </Field>
        <Field label="Maximum amount" id={`${id}-max`}>
          <input
            id={`${id}-max`}
            type="number"
            inputMode="decimal"
            step="any"
            value={filters.amount_max}
            onChange={(e) => set('amount_max', e.target.value)}
          />
        </Field>
        <Field label="Vendor" id={`${id}-vendor`}>
          <input
            id={`${id}-vendor`}
            type="search"
            value={filters.vendor}
            onChange={(e) => set('vendor', e.target.value)}
          />
        </Field>
        <Field label="User email" id={`${id}-user`}>
          <input id={`${id}-user`} type="search" value={filters.user} onChange={(e) => set('user', e.target.value)} />
        </Field>
        <Field label="Receipts" id={`${id}-receipt`}>
          <select
            id={`${id}-receipt`}
            value={filters.receipt ?? ''}
            onChange={(e) => set('receipt', isReceiptFilter(e.target.value) ? e.target.value : null)}
          >
            <option value="">With or without</option>
            <option value="missing">Missing receipt</option>
            <option value="present">Has receipt</option>
          </select>
        </Field>
        <Field label="Rows per page" id={`${id}-limit`}>
          <select id={`${id}-limit`} value={limit} onChange={(e) => setLimit(Number(e.target.value))}>
            {PAGE_SIZES.map((size) => (
              <option key={size} value={size}>
                {size}
              </option>
            ))}
          </select>
        </Field>
      </div>
      <div className="filters-checks">
        <label className="check">
          <input type="checkbox" checked={filters.uncoded} onChange={(e) => set('uncoded', e.target.checked)} />
          Uncoded lines only
        </label>
        <label className="check">
          <input
            type="checkbox"
            checked={filters.has_export_failure}
            onChange={(e) => set('has_export_failure', e.target.checked)}
          />
          Failed exports only
        </label>
      </div>
      {filters.exported_on && (
        <p className="filters-note">
          Records with an export{' '}
          {filters.export_outcome === 'SUCCESS'
            ? 'success'
            : filters.export_outcome === 'FAILURE'
              ? 'failure'
              : 'report'}{' '}
          on <time dateTime={filters.exported_on}>{formatDay(filters.exported_on)}</time> (UTC).{' '}
          <button type="button" className="button-quiet" onClick={clearExportDay}>
            Remove this filter
          </button>
        </p>
      )}
      <div className="button-row">
        <button type="submit" className="button-primary">
          Apply filters
        </button>
        <button type="button" onClick={clear}>
          Clear filters
        </button>
      </div>
    </form>
  );
}
