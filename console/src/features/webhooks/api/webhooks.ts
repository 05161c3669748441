import type {
  RedeliverRequest,
  WebhookAttemptQuery,
  WebhookEndpoint,
  WebhookEndpointCreateRequest,
  WebhookEndpointUpdateRequest,
} from '@svc/client';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { client } from '../../../lib/client';

/** What the delivery log may be filtered by: an event type of the catalogue, or webhook.test (test events). */
export type LogEventType = NonNullable<WebhookAttemptQuery['event_type']>;

/** The webhooks screens' query keys: every key starts with 'webhooks', so a change refreshes them all. */
const keys = {
  all: ['webhooks'] as const,
  list: ['webhooks', 'list'] as const,
  endpoint: (id: string) => ['webhooks', 'endpoint', id] as const,
  attempts: (id: string, eventType: LogEventType | null, cursor: string | null) =>
    ['webhooks', 'attempts', id, { eventType, cursor }] as const,
};

/** Every endpoint of the account, in creation order (all pages: an account has few). */
export function useWebhooks() {
  return useQuery({
    queryKey: keys.list,
    queryFn: async ({ signal }) => {
      const endpoints: WebhookEndpoint[] = [];
      for await (const endpoint of client.webhooks.listAll({ limit: 100 }, { signal })) endpoints.push(endpoint);
      return endpoints;
    },
  });
}

export function useWebhook(id: string) {
  return useQuery({
    queryKey: keys.endpoint(id),
    queryFn: ({ signal }) => client.webhooks.get(id, { signal }),
  });
}

/** One page of the delivery log, newest attempt first; the first page follows new attempts by itself. */
export function useAttempts(id: string, eventType: LogEventType | null, cursor: string | null) {
  return useQuery({
    queryKey: keys.attempts(id, eventType, cursor),
    queryFn: ({ signal }) =>
      client.webhooks.attempts(
        id,
        { limit: 25, ...(eventType ? { event_type: eventType } : {}), ...(cursor ? { cursor } : {}) },
        { signal },
      ),
    placeholderData: keepPreviousData,
    refetchInterval: cursor === null ? 5_000 : false,
  });
}

/** A new endpoint; its secret is in this answer (kept out of the cache once the form is gone). */
export function useCreateWebhook() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: WebhookEndpointCreateRequest) => client.webhooks.create(input),
    gcTime: 0,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: keys.all }),
  });
}

/** URL, description, event types, or status (DISABLED / ENABLED). */
export function useUpdateWebhook(id: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (changes: WebhookEndpointUpdateRequest) => client.webhooks.update(id, changes),
    onSuccess: (saved) => {
      queryClient.setQueryData(keys.endpoint(id), saved);
      return queryClient.invalidateQueries({ queryKey: keys.all });
    },
  });
}

export function useDeleteWebhook(id: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => client.webhooks.delete(id),
    onSuccess: () => {
      queryClient.removeQueries({ queryKey: keys.endpoint(id) });
      return queryClient.invalidateQueries({ queryKey: keys.list });
    },
  });
}

/** A new secret; the old one keeps signing beside it for `previousExpiresIn` seconds. */
export function useRotateSecret(id: string) {
  return useMutation({
    mutationFn: (previousExpiresIn: number) =>
      client.webhooks.rotateSecret(id, { previous_expires_in_seconds: previousExpiresIn }),
    gcTime: 0,
  });
}

/** One event again, or every event of the endpoint's types since a time: queued at once, same ids. */
export function useRedeliver(id: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: RedeliverRequest) => client.webhooks.redeliver(id, input),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['webhooks', 'attempts', id] }),
  });
}

/** A signed test event (webhook.test) to this endpoint alone, queued now; its attempts appear in the log. */
export function useSendTestEvent(id: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => client.webhooks.sendTestEvent(id),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['webhooks', 'attempts', id] }),
  });
}
