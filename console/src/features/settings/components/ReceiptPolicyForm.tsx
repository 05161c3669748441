import type { ReceiptPolicy } from '@svc/client';
import { useId, useState, type FormEvent } from 'react';
import { ErrorMessage } from '../../../components/ErrorMessage';
import { formatDateTime } from '../../../lib/format';
import { useSaveReceiptPolicy } from '../api/settings';
import { bodyOf, newRow, refusalOf, rowsOf, type PolicyProblems, type PolicyRow } from '../policy-draft';
import { PolicyRowFields } from './PolicyRowFields';

/**
 * The receipt policy: one row per currency (currency, the amount above which a receipt is required, the record
 * types it applies to), rows added and removed, saved at once. Refusals are shown next to their inputs.
 */
export function ReceiptPolicyForm({ policy, mayWrite }: { policy: ReceiptPolicy; mayWrite: boolean }) {
  const id = useId();
  const save = useSaveReceiptPolicy();
  const [rows, setRows] = useState<PolicyRow[]>(() => rowsOf(policy));
  const [problems, setProblems] = useState<PolicyProblems | null>(null);
  const [saved, setSaved] = useState(false);

  const change = (index: number, row: PolicyRow) => setRows(rows.map((r, i) => (i === index ? row : r)));
  const remove = (index: number) => {
    setRows(rows.filter((_, i) => i !== index));
    setProblems(null);
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setSaved(false);
    const sent = bodyOf(rows);
    if ('problems' in sent) {
      setProblems(sent.problems);
      return;
    }
    setProblems(null);
    save.mutate(sent.body, {
      onSuccess: (answer) => {
        setRows(rowsOf(answer));
        setSaved(true);
      },
      onError: (error) => setProblems(refusalOf(error)),
    });
  };

  const problemCount = problems
    ? Object.values(problems.rows).reduce((n, row) => n + Object.values(row).flat().length, 0) + problems.policy.length
    : 0;

  return (
    <form className="form-stack settings-section" onSubmit={submit} aria-labelledby={`${id}-title`} noValidate>
      <h2 id={`${id}-title`}>Receipt policy</h2>
      <p className="hint">
        A record of a chosen type, in a currency below, whose amount is above that currency&rsquo;s amount needs a
        receipt before it can be approved (moved to Ready for export). Last changed: {formatDateTime(policy.updated_at)}
        .
      </p>
      {rows.length === 0 && <p>No receipt is required.</p>}
      {rows.map((row, index) => (
        <PolicyRowFields
          key={row.key}
          row={row}
          index={index}
          mayWrite={mayWrite}
          problems={problems?.rows[index]}
          onChange={(next) => change(index, next)}
          onRemove={() => remove(index)}
        />
      ))}
      {problems && problemCount > 0 && (
        <div className="notice notice-error" role="alert">
          <p className="notice-title">
            The receipt policy was not saved: {problemCount === 1 ? 'a problem' : `${problemCount} problems`} to fix,
            shown next to {problemCount === 1 ? 'its input' : 'their inputs'}.
          </p>
          {problems.policy.length > 0 && (
            <ul>
              {problems.policy.map((words) => (
                <li key={words}>{words}</li>
              ))}
            </ul>
          )}
        </div>
      )}
      {save.isError && !problems && <ErrorMessage title="The receipt policy was not saved." error={save.error} />}
      {saved && (
        <p className="notice notice-success" role="status">
          The receipt policy is saved.
        </p>
      )}
      {mayWrite && (
        <div className="button-row">
          <button type="button" onClick={() => setRows([...rows, newRow()])}>
            Add a currency
          </button>
          <button type="submit" className="button-primary" disabled={save.isPending}>
            {save.isPending ? 'Saving…' : 'Save receipt policy'}
          </button>
        </div>
      )}
    </form>
  );
}
