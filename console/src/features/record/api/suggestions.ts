import type { CodingSuggestion } from '@svc/client';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { client } from '../../../lib/client';
import { queryKeys } from '../../../lib/query-keys';
import { storeChangedRecord } from './record';

/** The record's coding suggestions at the version shown (docs/suggestions.md); read only while it can be coded. */
export function useSuggestions(id: string, version: number, enabled: boolean) {
  return useQuery({
    queryKey: queryKeys.suggestions(id, version),
    queryFn: ({ signal }) => client.suggestions.get(id, { signal }),
    enabled,
    staleTime: 60_000,
  });
}

/** line id → field id → the suggestion for that empty cell. */
export type SuggestionsByCell = ReadonlyMap<string, ReadonlyMap<string, CodingSuggestion>>;

export function byCell(suggestions: readonly CodingSuggestion[]): SuggestionsByCell {
  const cells = new Map<string, Map<string, CodingSuggestion>>();
  for (const s of suggestions) {
    const line = cells.get(s.line_id) ?? new Map<string, CodingSuggestion>();
    line.set(s.field_id, s);
    cells.set(s.line_id, line);
  }
  return cells;
}

/**
 * Accepts every suggestion of the record at the version the user saw (409 VERSION_CONFLICT when someone changed
 * it): the service computes them again in the write and codes the lines in one new version.
 */
export function useAcceptSuggestions(id: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (version: number) => client.suggestions.accept(id, { version }),
    onSuccess: async (answer) => {
      await Promise.all([
        storeChangedRecord(queryClient, id, answer),
        queryClient.invalidateQueries({ queryKey: queryKeys.history(id) }),
        queryClient.invalidateQueries({ queryKey: ['records', 'search'] }),
        queryClient.invalidateQueries({ queryKey: queryKeys.overview }),
      ]);
    },
  });
}

/** "92%": a confidence as people read it. */
export const confidenceWords = (confidence: number) => `${Math.round(confidence * 100)}%`;
