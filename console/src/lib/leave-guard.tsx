import { useCallback, useEffect, useId, useLayoutEffect, useRef, useState, type ReactNode } from 'react';

/** The page's guard while it has unsaved edits: where Back is undone to, and how to ask. */
let guarded: { url: string; state: unknown; ask: (go: () => void) => void } | null = null;
/** A Back or Forward the user confirmed: let through once. */
let passNextPop = false;

// Registered once, when the console loads: before the router's own popstate listener, so that it runs first and
// can keep the router from following while the user is asked.
window.addEventListener(
  'popstate',
  (event) => {
    if (passNextPop) {
      passNextPop = false;
      return;
    }
    if (!guarded) return;
    // The browser has already moved: the router must not follow, and the page comes back into the address bar.
    event.stopImmediatePropagation();
    window.history.pushState(guarded.state, '', guarded.url);
    // Leave: where the browser was going, one step from the page pushed back (Back and Forward alike).
    guarded.ask(() => {
      passNextPop = true;
      window.history.back();
    });
  },
  true,
);

/**
 * While `active` (unsaved edits), every way out of the page asks first: links of the console (a click anywhere on
 * the page), the browser's Back and Forward, the page's own moves (`confirm(go)`: keyboard shortcuts), and closing
 * or reloading the tab (the browser's own question, beforeunload). In the page, a dialog "Leave without saving?":
 * Stay keeps everything as it is, Leave goes on.
 */
export function useLeaveGuard(
  active: boolean,
  explanation: string,
): { confirm: (go: () => void) => void; dialog: ReactNode } {
  const [pending, setPending] = useState<(() => void) | null>(null);
  const activeRef = useRef(active);
  activeRef.current = active;
  // A way out the user confirmed: let it through once.
  const bypass = useRef(false);

  const confirm = useCallback((go: () => void) => {
    if (!activeRef.current) return go();
    setPending(() => go);
  }, []);

  useEffect(() => {
    if (!active) return;
    const onBeforeUnload = (event: BeforeUnloadEvent) => {
      event.preventDefault();
      // Older browsers ask only when returnValue is set.
      event.returnValue = '';
    };
    const onClick = (event: MouseEvent) => {
      if (bypass.current || event.defaultPrevented || event.button !== 0) return;
      if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
      const link = event.target instanceof Element ? event.target.closest('a[href]') : null;
      if (!(link instanceof HTMLAnchorElement) || link.target === '_blank' || link.hasAttribute('download')) return;
      if (link.origin !== window.location.origin || link.href === window.location.href) return;
      // Before the router sees the click: nothing moves until the user says so.
      event.preventDefault();
      event.stopImmediatePropagation();
      setPending(() => () => {
        bypass.current = true;
        try {
          link.click();
        } finally {
          bypass.current = false;
        }
      });
    };
    // The page as it is now: where Back is undone to.
    const guard = {
      url: window.location.href,
      state: window.history.state as unknown,
      ask: (go: () => void) => setPending(() => go),
    };
    guarded = guard;
    window.addEventListener('beforeunload', onBeforeUnload);
    // Capturing on the document: before the router's handler (React's, on its root element) sees the click.
    document.addEventListener('click', onClick, true);
    return () => {
      if (guarded === guard) guarded = null;
      window.removeEventListener('beforeunload', onBeforeUnload);
      document.removeEventListener('click', onClick, true);
    };
  }, [active]);

  const stay = () => setPending(null);
  const leave = () => {
    const go = pending;
    setPending(null);
    go?.();
  };
  const dialog = pending ? <LeaveDialog explanation={explanation} onStay={stay} onLeave={leave} /> : null;
  return { confirm, dialog };
}

function LeaveDialog({
  explanation,
  onStay,
  onLeave,
}: {
  explanation: string;
  onStay: () => void;
  onLeave: () => void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const textId = useId();
  useLayoutEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
  }, []);
  return (
    <dialog
      ref={ref}
      className="leave-dialog"
      aria-labelledby={titleId}
      aria-describedby={textId}
      onCancel={(event) => {
        event.preventDefault();
        onStay();
      }}
    >
      <h2 id={titleId}>Leave without saving?</h2>
      <p id={textId}>{explanation}</p>
      <div className="button-row">
        {/* The safe answer has the focus in a modal question. */}
        <button type="button" className="button-primary" autoFocus onClick={onStay}>
          Stay
        </button>
        <button type="button" onClick={onLeave}>
          Leave
        </button>
      </div>
    </dialog>
  );
}
