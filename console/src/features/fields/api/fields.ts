import type { Field, FieldCreate, FieldUpdate } from '@svc/client';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { client } from '../../../lib/client';
import { queryKeys } from '../../../lib/query-keys';

/** Every field of the account, disabled ones included, in creation order. */
export function useAllFields() {
  return useQuery({
    queryKey: queryKeys.allFields,
    queryFn: async ({ signal }) => {
      const fields: Field[] = [];
      for await (const field of client.fields.listAll({ limit: 1000 }, { signal })) fields.push(field);
      return fields;
    },
  });
}

export function useField(fieldId: string) {
  return useQuery({
    queryKey: [...queryKeys.allFields, fieldId],
    queryFn: ({ signal }) => client.fields.get(fieldId, { signal }),
  });
}

/** A change to fields refreshes every fields query (this screen's and the coding pickers'). */
function useRefreshFields() {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: queryKeys.fields });
}

export function useCreateField() {
  const refresh = useRefreshFields();
  return useMutation({
    mutationFn: (input: FieldCreate) => client.fields.create(input),
    onSuccess: refresh,
  });
}

export function useUpdateField(fieldId: string) {
  const refresh = useRefreshFields();
  return useMutation({
    mutationFn: (changes: FieldUpdate) => client.fields.update(fieldId, changes),
    onSuccess: refresh,
  });
}

export function useDeleteField(fieldId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => client.fields.delete(fieldId),
    onSuccess: async () => {
      queryClient.removeQueries({ queryKey: [...queryKeys.allFields, fieldId] });
      queryClient.removeQueries({ queryKey: queryKeys.valuesOf(fieldId) });
      await queryClient.invalidateQueries({ queryKey: queryKeys.fields });
    },
  });
}
