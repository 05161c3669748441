import { useEffect } from 'react';
import { Link, useLocation } from 'wouter';
import { queueState, type QueueContext } from '../../../lib/queue-context';

/** j / k: the next / previous record of the queue's page, unless the user is typing. */
function useQueueShortcuts(
  previous: string | null,
  next: string | null,
  queue: QueueContext | null,
  beforeLeave: (go: () => void) => void,
) {
  const [, navigate] = useLocation();
  useEffect(() => {
    if (!queue) return;
    const onKey = (event: KeyboardEvent) => {
      if (event.altKey || event.ctrlKey || event.metaKey || event.defaultPrevented) return;
      const target = event.target;
      if (
        target instanceof HTMLElement &&
        (target.isContentEditable || ['INPUT', 'SELECT', 'TEXTAREA'].includes(target.tagName))
      ) {
        return;
      }
      const to = event.key === 'j' ? next : event.key === 'k' ? previous : null;
      if (to) {
        event.preventDefault();
        beforeLeave(() => navigate(`/records/${encodeURIComponent(to)}`, { state: queueState(queue) }));
      }
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [previous, next, queue, navigate, beforeLeave]);
}

const goNow = (go: () => void) => go();

/**
 * Back to the queue, and (opened from the queue) the previous and next records of its page. `beforeLeave` may hold
 * the shortcuts' move (unsaved edits: it asks first).
 */
export function RecordNavigation({
  id,
  queue,
  beforeLeave = goNow,
}: {
  id: string;
  queue: QueueContext | null;
  beforeLeave?: (go: () => void) => void;
}) {
  const index = queue ? queue.ids.indexOf(id) : -1;
  const previous = queue && index > 0 ? (queue.ids[index - 1] ?? null) : null;
  const next = queue && index >= 0 ? (queue.ids[index + 1] ?? null) : null;
  const inQueue = queue && index >= 0 && queue.ids.length > 1 ? queue : null;
  useQueueShortcuts(previous, next, inQueue, beforeLeave);
  return (
    <nav className="record-nav" aria-label="Records">
      <Link href={queue?.search ? `/queue?${queue.search}` : '/queue'}>← Back to the queue</Link>
      {inQueue && (
        <>
          <span className="muted">
            Record {index + 1} of {inQueue.ids.length} on the queue&rsquo;s page
          </span>
          {previous ? (
            <Link href={`/records/${encodeURIComponent(previous)}`} state={queueState(inQueue)}>
              Previous record <kbd>k</kbd>
            </Link>
          ) : (
            <span className="muted">First of the page</span>
          )}
          {next ? (
            <Link href={`/records/${encodeURIComponent(next)}`} state={queueState(inQueue)}>
              Next record <kbd>j</kbd>
            </Link>
          ) : (
            <span className="muted">Last of the page</span>
          )}
          <span className="hint">
            Keyboard shortcuts: <kbd>j</kbd> next record, <kbd>k</kbd> previous record.
          </span>
        </>
      )}
    </nav>
  );
}
