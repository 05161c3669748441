import type { FieldValueCreate, FieldValueDelete, FieldValueUpdate } from '@svc/client';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { client } from '../../../lib/client';
import { queryKeys } from '../../../lib/query-keys';

export const VALUES_PAGE_SIZE = 50;
export const SEARCH_LIMIT = 100;

/** One page of a field's values in creation order (the API's keyset pages). */
export function useValuePage(fieldId: string, cursor: string | null, enabled: boolean) {
  return useQuery({
    queryKey: queryKeys.valuePage(fieldId, cursor),
    queryFn: ({ signal }) =>
      client.fieldValues.list(fieldId, cursor ? { limit: VALUES_PAGE_SIZE, cursor } : { limit: VALUES_PAGE_SIZE }, {
        signal,
      }),
    enabled,
    placeholderData: keepPreviousData,
  });
}

/** The value search (starts-with first, then contains, in value or remote_id), disabled values included. */
export function useValueSearch(fieldId: string, text: string) {
  return useQuery({
    queryKey: queryKeys.valueSearch(fieldId, text),
    queryFn: ({ signal }) =>
      client.review.searchFieldValues(fieldId, { q: text, limit: SEARCH_LIMIT, include_disabled: true }, { signal }),
    enabled: text.length > 0,
    placeholderData: keepPreviousData,
  });
}

/** After a change to a field's values: every list and search of them, and the coding pickers' answers. */
export function useRefreshValues(fieldId: string) {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: queryKeys.valuesOf(fieldId) });
}

export function useCreateValue(fieldId: string) {
  const refresh = useRefreshValues(fieldId);
  return useMutation({
    mutationFn: async (item: FieldValueCreate) => (await client.fieldValues.create(fieldId, [item])).items[0],
    onSuccess: refresh,
  });
}

export function useUpdateValue(fieldId: string) {
  const refresh = useRefreshValues(fieldId);
  return useMutation({
    mutationFn: async (item: FieldValueUpdate) => (await client.fieldValues.update(fieldId, [item])).items[0],
    onSuccess: refresh,
  });
}

export function useDeleteValue(fieldId: string) {
  const refresh = useRefreshValues(fieldId);
  return useMutation({
    mutationFn: (item: FieldValueDelete) => client.fieldValues.delete(fieldId, [item]),
    onSuccess: refresh,
  });
}
