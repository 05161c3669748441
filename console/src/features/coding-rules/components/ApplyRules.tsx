import { useId } from 'react';
import { Link } from 'wouter';
import { ErrorMessage } from '../../../components/ErrorMessage';
import { plural } from '../../../lib/format';
import { useApplyRules } from '../api/rules';

const SHOWN = 20;

/** An admin's "Apply rules now": the enabled rules on every record under review, and what changed. */
export function ApplyRules() {
  const id = useId();
  const apply = useApplyRules();
  const changed = apply.data;
  return (
    <section className="card" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Apply the rules to records under review</h2>
      <p className="hint">
        New records are coded by the rules as they arrive. To code the records already in Prepare or Review, apply the
        enabled rules now: they fill fields left uncoded and replace values a rule set, never a person&rsquo;s.
      </p>
      <div className="button-row">
        <button type="button" className="button-primary" disabled={apply.isPending} onClick={() => apply.mutate({})}>
          {apply.isPending ? 'Applying…' : 'Apply rules now'}
        </button>
      </div>
      {apply.isError && <ErrorMessage title="The rules were not applied." error={apply.error} />}
      {changed && (
        <div className="notice notice-success" role="status">
          <p className="notice-title">Rules applied: {plural(changed.records_changed, 'record')} changed.</p>
          {changed.updated_accounting_record_ids.length > 0 && (
            <ul className="scope-list">
              {changed.updated_accounting_record_ids.slice(0, SHOWN).map((recordId) => (
                <li key={recordId}>
                  <Link href={`/records/${encodeURIComponent(recordId)}`}>
                    <code>{recordId}</code>
                  </Link>
                </li>
              ))}
              {changed.updated_accounting_record_ids.length > SHOWN && (
                <li>and {plural(changed.updated_accounting_record_ids.length - SHOWN, 'other')}</li>
              )}
            </ul>
          )}
        </div>
      )}
    </section>
  );
}
