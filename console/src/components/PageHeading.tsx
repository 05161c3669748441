import { useEffect, useLayoutEffect, useRef, type ReactNode } from 'react';

/** Navigations inside the console so far (a new path; a change of the search alone is the same page). */
let navigations = 0;
/** What had the focus when the last navigation happened (the link clicked, the button pressed). */
let focusAtNavigation: Element | null = null;
/** The navigation whose page has drawn a heading (0: the first load's). */
let headingOf = 0;
/** Whether anything on the page has had the focus yet (the user's Tab, a click in a field, a heading given it). */
let focusedYet = false;
if (typeof window !== 'undefined') {
  let path = window.location.pathname;
  const onLocation = () => {
    if (window.location.pathname === path) return;
    path = window.location.pathname;
    navigations += 1;
    focusAtNavigation = document.activeElement;
  };
  // wouter's browser location sends pushState and replaceState as events of their own (the history it navigates).
  for (const event of ['popstate', 'pushState', 'replaceState']) window.addEventListener(event, onLocation);
  document.addEventListener('focusin', () => (focusedYet = true), { capture: true, once: true });
}

/**
 * Whether a heading just drawn takes the focus. The first heading after a navigation inside the console does, so that
 * screen-reader and keyboard users start at the new page's top, unless the user has moved the focus since the
 * navigation (a Tab pressed while the page loaded). Not on the first load, when the browser starts at the document's
 * top itself. A later heading of the same page (its data came after its loading heading) takes it only where the
 * focus fell to the page's body when what held it went.
 */
function takesFocus(): boolean {
  const active = document.activeElement;
  const onBody = active === null || active === document.body;
  if (headingOf !== navigations) {
    headingOf = navigations;
    return onBody || active === focusAtNavigation;
  }
  return focusedYet && onBody;
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
