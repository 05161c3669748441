import type { Field } from '@svc/client';
import { SvcApiError } from '@svc/client';
import { useValueName } from '../api/rules';
import type { Actions } from '../rule-draft';

/** A value's name, looked up; a value deleted since is said so. */
export function ValueName({ fieldId, svcId }: { fieldId: string; svcId: string }) {
  const value = useValueName(fieldId, svcId);
  if (value.data) return <>{value.data.value}</>;
  if (value.error instanceof SvcApiError && value.error.status === 404) return <>a deleted value ({svcId})</>;
  if (value.isError) return <>{svcId}</>;
  return <span className="muted">…</span>;
}

export const fieldNameOf = (fields: readonly Field[] | undefined, fieldId: string): string =>
  fields?.find((f) => f.svc_id === fieldId)?.name ?? `field ${fieldId}`;

/** What a rule sets, as a list: "GL Account → Travel", "Memo → “Ride”". */
export function RuleActionsText({ actions, fields }: { actions: Actions; fields: readonly Field[] | undefined }) {
  return (
    <ul className="rule-actions">
      {actions.field_values.map((v) => (
        <li key={v.field_id}>
          {fieldNameOf(fields, v.field_id)} → <ValueName fieldId={v.field_id} svcId={v.svc_id} />
        </li>
      ))}
      {actions.memo !== undefined && <li>Memo → “{actions.memo}”</li>}
    </ul>
  );
}
