import type {
  AccountingRecord,
  CodeLinesRequest,
  BulkMoveResponse,
  MergeLinesRequest,
  RecordForReview,
  ReviewMove,
  SplitLineRequest,
} from '@svc/client';
import { useInfiniteQuery, useMutation, useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { client } from '../../../lib/client';
import type { ReviewStatus } from '../../../lib/labels';
import { queryKeys } from '../../../lib/query-keys';

/**
 * A record as double entry (every line) and as single entry (its economic lines, the ones coded), of one read,
 * with the review moves the server allows it now for this user (the console offers only these).
 */
export interface RecordViews {
  record: AccountingRecord;
  singleEntry: AccountingRecord;
  allowedMoves: ReviewMove[];
  /** Whether the user may change the coding now (lines coded, split, merged), and why not: the server's answer. */
  coding: RecordForReview['coding'];
}

export function useRecord(id: string) {
  const queryClient = useQueryClient();
  return useQuery({
    queryKey: queryKeys.record(id),
    queryFn: async ({ signal }): Promise<RecordViews> => {
      const answer = await client.review.getForReview(id, { signal });
      // The answer carries the suggestions of the same version (for a user who may code): the record page asks
      // for them no more.
      if (answer.suggestions !== null) {
        const { version } = answer.record;
        queryClient.setQueryData(queryKeys.suggestions(id, version), {
          accounting_record_id: id,
          version,
          suggestions: answer.suggestions,
        });
      }
      return {
        record: answer.record,
        singleEntry: answer.single_entry,
        allowedMoves: answer.allowed_moves,
        coding: answer.coding,
      };
    },
  });
}

/**
 * A change's answer shown at once; then the record read again, for the moves it allows now (coding can make
 * approval possible or not). Awaited, so that the page's reaction to the change sees the fresh moves.
 */
export async function storeChangedRecord(
  queryClient: QueryClient,
  id: string,
  answer: { record: AccountingRecord; single_entry: AccountingRecord },
): Promise<void> {
  queryClient.setQueryData<RecordViews>(queryKeys.record(id), (was) => ({
    record: answer.record,
    singleEntry: answer.single_entry,
    allowedMoves: was?.allowedMoves ?? [],
    // Until the record is read again (below): what the page was told, or nothing editable.
    coding: was?.coding ?? { editable: false, reason_code: 'RECORD_NOT_EDITABLE', reason: '' },
  }));
  await queryClient.invalidateQueries({ queryKey: queryKeys.record(id) });
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
      await Promise.all([storeChangedRecord(queryClient, id, answer), refresh()]);
    },
  });
}

/**
 * Moves the record through `steps` (one state, or submit then approve), each at the version the previous answered,
 * starting from the version the user saw. Through the bulk move with this one record: the same checks and answers
 * as the single move, and the operation the review role may call (the single move is accounting.record.admin only).
 * A later step refused leaves the earlier ones made: the record is read again either way.
 */
export function useMoveRecord(id: string) {
  const queryClient = useQueryClient();
  const refresh = useRefreshAfterChange(id);
  return useMutation({
    mutationFn: async (input: { steps: ReviewStatus[]; version: number }) => {
      let version = input.version;
      let moved: BulkMoveResponse['items'][number] | undefined;
      for (const review_status of input.steps) {
        const answer = await client.review.moveRecords({ review_status, records: [{ id, version }] });
        moved = answer.items[0];
        if (!moved) throw new Error('The service answered the move without the record.');
        version = moved.version;
      }
      if (!moved) throw new Error('No move was asked for.');
      return moved;
    },
    onSettled: async () => {
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
      await Promise.all([storeChangedRecord(queryClient, id, answer), refresh()]);
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
      await Promise.all([storeChangedRecord(queryClient, id, answer), refresh()]);
    },
  });
}
