/**
 * A record opened from the review queue carries, in its history entry's state, the ids of the queue's current
 * page and the queue's query: the record page's j / k go to the next / previous of them, and "Back to the queue"
 * returns to the same filters.
 */
export interface QueueContext {
  ids: string[];
  search: string;
}

export function readQueueContext(state: unknown): QueueContext | null {
  if (typeof state !== 'object' || state === null || !('queue' in state)) return null;
  const queue: unknown = state.queue;
  if (typeof queue !== 'object' || queue === null || !('ids' in queue) || !('search' in queue)) return null;
  const { ids, search } = queue;
  if (!Array.isArray(ids) || typeof search !== 'string') return null;
  return { ids: ids.filter((id): id is string => typeof id === 'string'), search };
}

export const queueState = (queue: QueueContext) => ({ queue });
