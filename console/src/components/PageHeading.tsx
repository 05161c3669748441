import { useEffect, useLayoutEffect, useRef, type ReactNode } from 'react';

/** The location whose page last drew its heading (null before the first one). */
let headingAt: string | null = null;
/** Whether anything on the page has had the focus yet (the user's Tab, a click in a field, a heading given it). */
let focusedYet = false;
if (typeof document !== 'undefined') {
  document.addEventListener('focusin', () => (focusedYet = true), { capture: true, once: true });
}

/**
 * Whether a heading just drawn takes the focus. After a navigation inside the console it does, so that
 * screen-reader and keyboard users start at the new page's top. Not on the first load, when the browser starts at the
 * document's top itself. A heading drawn again at the same location (the page's data came after its loading
 * heading, a step of sign-in) takes it only where the focus was lost to the page's body when what held it went: it
 * never takes it from where the user has moved it meanwhile (a Tab pressed while the page loaded).
 */
function takesFocus(): boolean {
  const here = `${window.location.pathname}${window.location.search}`;
  const before = headingAt;
  headingAt = here;
  if (before === null) return false;
  if (before !== here) return true;
  const active = document.activeElement;
  return focusedYet && (active === null || active === document.body);
}

/**
 * The page's h1. It names the document (the tab's title) and takes the focus as `takesFocus` says. The focus moves
 * in a layout effect, with the heading's first drawing: a page drawn when its data came (not on a key press) would
 * otherwise show its heading for a moment before the focus got there, and a key pressed in that moment would act
 * where the focus was.
 */
export function PageHeading({ title, children }: { title: string; children?: ReactNode }) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${title} · svc console`;
  }, [title]);
  useLayoutEffect(() => {
    if (takesFocus()) ref.current?.focus();
  }, []);
  return (
    <h1 ref={ref} tabIndex={-1}>
      {children ?? title}
    </h1>
  );
}
