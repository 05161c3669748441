import type { AccountingRecord, CodeLinesRequest, MergeLinesRequest, SplitLineRequest } from '@svc/client';
import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { client } from '../../../lib/client';
import type { ReviewStatus } from '../../../lib/labels';
import { queryKeys } from '../../../lib/query-keys';

/** A record as double entry (every line) and as single entry (its economic lines, the ones coded). */
export interface RecordViews {
  record: AccountingRecord;
  singleEntry: AccountingRecord;
}

export function useRecord(id: string) {
  return useQuery({
    queryKey: queryKeys.record(id),
    queryFn: async ({ signal }): Promise<RecordViews> => {
      // Two reads: if the record changed in between, read both again so the views are of one version.
      for (let attempt = 0; attempt < 3; attempt++) {
        const [record, singleEntry] = await Promise.all([
          client.accountingRecords.get(id, {}, { signal }),
          client.accountingRecords.get(id, { single_entry: true }, { signal }),
        ]);
        if (record.version === singleEntry.version) return { record, singleEntry };
      }
      throw new Error('The record kept changing while it was being read. Reload the page.');
    },
  });
}

export function useRecordHistory(id: string) {
  return useInfiniteQuery({
    queryKey: queryKeys.history(id),
    queryFn: ({ pageParam, signal }) =>
      client.review.history(id, pageParam ? { limit: 50, cursor: pageParam } : { limit: 50 }, { signal }),
    initialPageParam: null as string | null,
    getNextPageParam: (page) => (page.has_next_page ? page.next_cursor : null),
  });
}

export function useRequiredCoding() {
  return useQuery({
    queryKey: queryKeys.requiredCoding,
    queryFn: () => client.review.requiredCoding(),
    staleTime: 60_000,
  });
}

/** The account's fields that can code a line (not disabled). */
export function useCodingFields() {
  return useQuery({
    queryKey: queryKeys.fields,
    queryFn: async () => (await client.fields.list({ limit: 1000 })).items.filter((f) => !f.is_disabled),
    staleTime: 60_000,
  });
}

/** Type-ahead over a field's values: those starting with the text first, then those containing it. */
export function useFieldValueSearch(fieldId: string, text: string, enabled: boolean) {
  return useQuery({
    queryKey: queryKeys.fieldValues(fieldId, text),
    queryFn: ({ signal }) => client.review.searchFieldValues(fieldId, { q: text, limit: 10 }, { signal }),
    enabled: enabled && text.length > 0,
    staleTime: 30_000,
  });
}

function useRefreshAfterChange(id: string) {
  const queryClient = useQueryClient();
  return () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: queryKeys.history(id) }),
      queryClient.invalidateQueries({ queryKey: ['records', 'search'] }),
      queryClient.invalidateQueries({ queryKey: queryKeys.overview }),
    ]);
}

/** Saves the coding of lines at the version the user saw (409 VERSION_CONFLICT when someone changed it). */
export function useSaveCoding(id: string) {
  const queryClient = useQueryClient();
  const refresh = useRefreshAfterChange(id);
  return useMutation({
    mutationFn: (input: CodeLinesRequest) => client.review.codeLines(id, input),
    onSuccess: async (answer) => {
      queryClient.setQueryData<RecordViews>(queryKeys.record(id), {
        record: answer.record,
        singleEntry: answer.single_entry,
      });
      await refresh();
    },
  });
}

/**
 * Moves the record one step (approve, send back) at the version the user saw. Through the bulk move with this one
 * record: the same checks and answers as the single move, and the operation the review role may call (the single
 * move is accounting.record.admin only).
 */
export function useMoveRecord(id: string) {
  const queryClient = useQueryClient();
  const refresh = useRefreshAfterChange(id);
  return useMutation({
    mutationFn: async (input: { review_status: ReviewStatus; version: number }) => {
      const answer = await client.review.moveRecords({
        review_status: input.review_status,
        records: [{ id, version: input.version }],
      });
      const moved = answer.items[0];
      if (!moved) throw new Error('The service answered the move without the record.');
      return moved;
    },
    onSuccess: async () => {
      await Promise.all([queryClient.invalidateQueries({ queryKey: queryKeys.record(id) }), refresh()]);
    },
  });
}

/** Splits a line into parts at the version the user saw (the parts get new line ids). */
export function useSplitLine(id: string) {
  const queryClient = useQueryClient();
  const refresh = useRefreshAfterChange(id);
  return useMutation({
    mutationFn: (input: { lineId: string; request: SplitLineRequest }) =>
      client.review.splitLine(id, input.lineId, input.request),
    onSuccess: async (answer) => {
      queryClient.setQueryData<RecordViews>(queryKeys.record(id), {
        record: answer.record,
        singleEntry: answer.single_entry,
      });
      await refresh();
    },
  });
}

/** Merges lines into one, in the place of the first, at the version the user saw. */
export function useMergeLines(id: string) {
  const queryClient = useQueryClient();
  const refresh = useRefreshAfterChange(id);
  return useMutation({
    mutationFn: (request: MergeLinesRequest) => client.review.mergeLines(id, request),
    onSuccess: async (answer) => {
      queryClient.setQueryData<RecordViews>(queryKeys.record(id), {
        record: answer.record,
        singleEntry: answer.single_entry,
      });
      await refresh();
    },
  });
}
