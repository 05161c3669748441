import { useEffect, useLayoutEffect, useRef, type ReactNode } from 'react';

let firstPage = true;

/**
 * The page's h1. It names the document (the tab's title), and after a navigation inside the console it takes
 * the focus, so that screen-reader and keyboard users start at the new page's top (not on the first load, when
 * the browser does that itself). The focus moves in a layout effect, with the heading's first drawing: a page drawn
 * when its data came (not on a key press) would otherwise show its heading for a moment before the focus got there,
 * and a key pressed in that moment would act where the focus was.
 */
export function PageHeading({ title, children }: { title: string; children?: ReactNode }) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${title} · svc console`;
  }, [title]);
  useLayoutEffect(() => {
    if (firstPage) firstPage = false;
    else ref.current?.focus();
  }, []);
  return (
    <h1 ref={ref} tabIndex={-1}>
      {children ?? title}
    </h1>
  );
}
