import type { AccountingRecord, Receipt } from '@svc/client';
import { useCallback } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { client } from '../../../lib/client';
import { queryKeys } from '../../../lib/query-keys';

type RecordReceipt = NonNullable<AccountingRecord['receipts']>[number];

/** A receipt svc stores: its link's path is svc's own content route (docs/receipts.md). */
const STORED = /^\/internal\/v1\/receipts\/[^/]+\/content$/;

/**
 * A signed link's path and query, on the console's own origin: the console and the API are one server, and the
 * link's host is PUBLIC_URL, which a browser may reach by another name (a proxy, a laptop's 127.0.0.1).
 */
export function onThisOrigin(uri: string): string {
  const url = new URL(uri, window.location.origin);
  return `${url.pathname}${url.search}`;
}

/** Whether the record's receipt is one svc stores (uploaded), rather than one a source system sent with links. */
export function isStored(receipt: RecordReceipt): boolean {
  const uri = receipt.download_uris?.length === 1 ? receipt.download_uris[0] : undefined;
  if (uri === undefined) return false;
  try {
    return STORED.test(new URL(uri, window.location.origin).pathname);
  } catch {
    return false;
  }
}

/**
 * The stored receipts of a record with their type, size and fresh links (GET /internal/v1/receipts/{id}), in the
 * record's order. Keyed under the record: whatever re-reads the record (a change, a link that expired) reads these
 * again with it.
 */
export function useStoredReceipts(record: AccountingRecord) {
  const ids = (record.receipts ?? []).filter(isStored).map((r) => r.id);
  return useQuery({
    queryKey: [...queryKeys.record(record.id), 'receipts', ids] as const,
    queryFn: ({ signal }): Promise<Receipt[]> => Promise.all(ids.map((id) => client.receipts.get(id, { signal }))),
    enabled: ids.length > 0,
    // A receipt added or removed: the tiles shown stay until the new list is read (no flash of "No receipt yet").
    placeholderData: (previous) => (ids.length > 0 ? previous : undefined),
  });
}

/** Reads the record again, and with it its receipts' links (a link past its time, or refused). */
export function useRereadRecord(id: string) {
  const queryClient = useQueryClient();
  return useCallback(() => queryClient.invalidateQueries({ queryKey: queryKeys.record(id) }), [queryClient, id]);
}

function useRefresh(id: string) {
  const queryClient = useQueryClient();
  return () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: queryKeys.record(id) }),
      queryClient.invalidateQueries({ queryKey: queryKeys.history(id) }),
      queryClient.invalidateQueries({ queryKey: ['records', 'search'] }),
    ]);
}

/** Uploads one file to the record under its own Idempotency-Key (a retry of that file sends the same key). */
export function useUploadReceipt(id: string) {
  const refresh = useRefresh(id);
  return useMutation({
    mutationFn: async (input: { file: File; idempotencyKey: string }) => {
      const bytes = new Uint8Array(await input.file.arrayBuffer());
      return client.receipts.upload(id, bytes, {
        contentType: input.file.type || 'application/octet-stream',
        idempotencyKey: input.idempotencyKey,
      });
    },
    onSuccess: () => refresh(),
  });
}

/** Removes a receipt from the record (it stays stored; the history names it). */
export function useRemoveReceipt(id: string) {
  const refresh = useRefresh(id);
  return useMutation({
    mutationFn: (receiptId: string) => client.receipts.remove(id, receiptId),
    onSettled: () => refresh(),
  });
}
