import type {
  CodingRule,
  CodingRuleCreateRequest,
  CodingRulePreviewRequest,
  CodingRuleUpdateRequest,
  CodingRuleVersion,
  CodingRulesApplyRequest,
} from '@svc/client';
import { useMutation, useQueries, useQuery, useQueryClient } from '@tanstack/react-query';
import { client } from '../../../lib/client';
import { queryKeys } from '../../../lib/query-keys';

/** The rules screens' query keys: every key starts with 'coding-rules', so a change refreshes them all. */
const keys = {
  all: ['coding-rules'] as const,
  list: ['coding-rules', 'list'] as const,
  rule: (id: string) => ['coding-rules', 'rule', id] as const,
  versions: (id: string) => ['coding-rules', 'versions', id] as const,
};

/** Every rule of the account in precedence order (all pages), each with its status as computed now. */
export function useRules() {
  return useQuery({
    queryKey: keys.list,
    queryFn: async ({ signal }) => {
      const rules: CodingRule[] = [];
      for await (const rule of client.codingRules.listAll({ limit: 1000 }, { signal })) rules.push(rule);
      return rules;
    },
  });
}

export function useRule(id: string) {
  return useQuery({ queryKey: keys.rule(id), queryFn: ({ signal }) => client.codingRules.get(id, { signal }) });
}

/** Every version of a rule, oldest first. */
export function useRuleVersions(id: string) {
  return useQuery({
    queryKey: keys.versions(id),
    queryFn: async ({ signal }) => {
      const versions: CodingRuleVersion[] = [];
      for await (const v of client.codingRules.versionsAll(id, { limit: 1000 }, { signal })) versions.push(v);
      return versions;
    },
  });
}

/**
 * A value's name, looked up by its ids (a rule names values by svc_id). Keyed under the field's values, so that a
 * change to them refreshes it; a deleted value answers 404, which the caller words.
 */
export function useValueName(fieldId: string, svcId: string) {
  return useQuery({
    queryKey: [...queryKeys.valuesOf(fieldId), { value: svcId }],
    queryFn: ({ signal }) => client.fieldValues.get(fieldId, svcId, { signal }),
    staleTime: 60_000,
    retry: false,
  });
}

function useRefreshRules() {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: keys.all });
}

export function useCreateRule() {
  const refresh = useRefreshRules();
  return useMutation({
    mutationFn: (input: CodingRuleCreateRequest) => client.codingRules.create(input),
    onSuccess: refresh,
  });
}

/** A change at the version the user saw (409 VERSION_CONFLICT when someone changed it meanwhile). */
export function useUpdateRule() {
  const queryClient = useQueryClient();
  const refresh = useRefreshRules();
  return useMutation({
    mutationFn: (input: { id: string; changes: CodingRuleUpdateRequest }) =>
      client.codingRules.update(input.id, input.changes),
    onSuccess: (saved) => {
      queryClient.setQueryData(keys.rule(saved.id), saved);
      queryClient.setQueryData<CodingRule[]>(keys.list, (list) => list?.map((r) => (r.id === saved.id ? saved : r)));
      return refresh();
    },
  });
}

/**
 * Moves rules into a new order: each rule whose position is not its place in `ordered` gets that place, one
 * PATCH each at the version listed (positions may tie until a first move numbers them). A conflict stops there.
 */
export function useReorderRules() {
  const refresh = useRefreshRules();
  return useMutation({
    mutationFn: async (ordered: CodingRule[]) => {
      for (const [position, rule] of ordered.entries()) {
        if (rule.position !== position) await client.codingRules.update(rule.id, { version: rule.version, position });
      }
    },
    onSettled: refresh,
  });
}

export function useDeleteRule() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => client.codingRules.delete(id),
    onSuccess: (_answer, id) => {
      queryClient.removeQueries({ queryKey: keys.rule(id) });
      return queryClient.invalidateQueries({ queryKey: keys.list });
    },
  });
}

/** What an unsaved rule would change now; nothing is written. */
export function usePreviewRule() {
  return useMutation({ mutationFn: (input: CodingRulePreviewRequest) => client.codingRules.preview(input) });
}

/** The enabled rules on the records under review: the records change, so every record query is refreshed. */
export function useApplyRules() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: CodingRulesApplyRequest) => client.codingRules.apply(input),
    onSuccess: () =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: queryKeys.records }),
        queryClient.invalidateQueries({ queryKey: queryKeys.overview }),
      ]),
  });
}

/** The names of the values a rule sets (svc_id → name); a value that cannot be read keeps its id. */
export function useValueNames(refs: readonly { field_id: string; svc_id: string }[]) {
  return useQueries({
    queries: refs.map((ref) => ({
      queryKey: [...queryKeys.valuesOf(ref.field_id), { value: ref.svc_id }],
      queryFn: ({ signal }: { signal: AbortSignal }) => client.fieldValues.get(ref.field_id, ref.svc_id, { signal }),
      staleTime: 60_000,
      retry: false,
    })),
    combine: (results) => ({
      pending: results.some((r) => r.isPending),
      names: new Map(refs.map((ref, i) => [ref.svc_id, results[i]?.data?.value ?? ref.svc_id])),
    }),
  });
}
