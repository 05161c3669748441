import type { Field } from '@svc/client';
import { useValueNames } from './api/rules';
import { lineValueRefs, type Conditions } from './rule-draft';
import type { Naming } from './rule-words';

/**
 * The names of the fields and values the rules' line conditions hold, for their words ("A line's Department is
 * Sales"); a field or value not (yet) known is named by its id.
 */
export function useConditionNaming(conditions: readonly Conditions[], fields: readonly Field[] | undefined): Naming {
  const seen = new Set<string>();
  const refs = conditions.flatMap(lineValueRefs).filter((ref) => !seen.has(ref.svc_id) && !!seen.add(ref.svc_id));
  const { names } = useValueNames(refs);
  return {
    field: (fieldId) => fields?.find((f) => f.svc_id === fieldId)?.name ?? fieldId,
    value: (svcId) => names.get(svcId) ?? svcId,
  };
}
