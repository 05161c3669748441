import { SvcApiError, type ExportMappingRequest } from '@svc/client';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { client } from '../../../lib/client';

const key = ['exports', 'mapping'] as const;

/** The account's export mapping: what every file is booked with. */
export function useExportMapping() {
  return useQuery({ queryKey: key, queryFn: ({ signal }) => client.accountingRecords.exportMapping({ signal }) });
}

export function useSaveExportMapping() {
  const queries = useQueryClient();
  return useMutation({
    mutationFn: (mapping: ExportMappingRequest) => client.accountingRecords.setExportMapping(mapping),
    onSuccess: (saved) => queries.setQueryData(key, saved),
  });
}

/** The service's words for each member it refused (details.errors of a 400 or 404), by pointer. */
export function problemsByPath(error: unknown): Map<string, string> {
  const out = new Map<string, string>();
  if (!(error instanceof SvcApiError)) return out;
  const listed = (error.details as { errors?: unknown } | null)?.errors;
  if (!Array.isArray(listed)) return out;
  for (const p of listed) {
    if (typeof p?.path === 'string' && typeof p?.message === 'string') out.set(p.path, p.message);
  }
  return out;
}
