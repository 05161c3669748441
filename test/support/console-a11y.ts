import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import { DESKTOP, expectNoAxeViolations, PHONE } from './browser.js';

/**
 * axe-core at every impact on the page as it is, at 1280 px and at 390 px (the phone layout): the viewport is put
 * back to the desktop's after.
 */
export async function expectNoAxeViolationsAtBothWidths(page: Page, screen: string): Promise<void> {
  await expectNoAxeViolations(page, `${screen} at ${DESKTOP.width} px`);
  await page.setViewportSize(PHONE);
  try {
    await expectNoAxeViolations(page, `${screen} at ${PHONE.width} px`);
  } finally {
    await page.setViewportSize(DESKTOP);
  }
}

/** One stop of a walk with Tab: the element that had the focus, and whether its focus could be seen. */
export interface FocusStop {
  /** tag, role and name, as a reader would tell it apart ("button “Approve”"). */
  what: string;
  /** An outline or a box shadow is drawn while it has the focus (on its label for a control hidden behind one). */
  shown: boolean;
  /** A modal dialog is open and the focus is outside it. */
  escaped: boolean;
}

/** What a walk with Tab found: the stops in order, and the controls of the page it never reached. */
export interface TabWalk {
  stops: FocusStop[];
  missed: string[];
  /** Tab went round: the walk came back to a stop it had made. */
  cycled: boolean;
}

/**
 * Presses Tab from where the focus is (nothing focused: the top of the page as it is loaded) until the focus comes
 * back to a control it has been on, at most `limit` times, then lists every control of the page (links, buttons,
 * form controls, anything with a tabindex ≥ 0, visible and enabled) that no stop reached. A radio group is reached when one of its radios
 * is (Tab enters a group once, arrows move inside), and a grid when one of its cells is (arrow keys move between
 * cells: the grid's help says so). Inside an open modal dialog, only the dialog's controls count.
 */
export async function walkWithTab(page: Page, limit = 1500): Promise<TabWalk> {
  await page.evaluate(() => {
    (window as any).__walk = { ids: new WeakMap<Element, number>(), next: 0, reached: new Set<Element>() };
  });
  const stops: FocusStop[] = [];
  const ids: number[] = [];
  let cycled = false;
  let previous: number | null = null;
  for (let i = 0; i < limit && !cycled; i++) {
    await page.keyboard.press('Tab');
    const stop = await page.evaluate(() => {
      const walk = (window as any).__walk;
      let el = document.activeElement;
      while (el?.shadowRoot?.activeElement) el = el.shadowRoot.activeElement;
      if (!el || el === document.body || el === document.documentElement) return null;
      if (!walk.ids.has(el)) walk.ids.set(el, walk.next++);
      walk.reached.add(el);
      const drawn = (shown: Element) => {
        const style = getComputedStyle(shown);
        const outlined = style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) > 0;
        return outlined || (style.boxShadow !== 'none' && style.boxShadow !== '');
      };
      // A control hidden behind its label (a file input styled as a button) shows its focus on the label.
      const rect = el.getBoundingClientRect();
      const tiny = rect.width <= 2 || rect.height <= 2;
      const labels = [...((el as HTMLInputElement).labels ?? [])];
      const shown = tiny && labels.length > 0 ? labels.some(drawn) : drawn(el);
      const name =
        el.getAttribute('aria-label') ??
        (el as HTMLInputElement).labels?.[0]?.textContent ??
        el.textContent ??
        el.getAttribute('name') ??
        '';
      const role = el.getAttribute('role');
      const what = `${el.tagName.toLowerCase()}${role ? `[role=${role}]` : ''} “${name.trim().replace(/\s+/g, ' ').slice(0, 60)}”`;
      const modal = document.querySelector('dialog:modal');
      const escaped = modal !== null && !modal.contains(el);
      return { id: walk.ids.get(el) as number, what, shown, escaped };
    });
    // Tab from the last control goes to the browser's own toolbar (the document's body has the focus): go on.
    if (!stop) {
      previous = null;
      continue;
    }
    // Tab inside one control (a date's day, month, year and calendar button) is one stop, drawn at each step.
    if (stop.id === previous) {
      stops.at(-1)!.shown &&= stop.shown;
      continue;
    }
    // Back at a stop already made: from here on Tab would go the same way again.
    if (ids.includes(stop.id)) cycled = true;
    else {
      ids.push(stop.id);
      stops.push({ what: stop.what, shown: stop.shown, escaped: stop.escaped });
    }
    previous = stop.id;
  }
  const missed = await page.evaluate(() => {
    const reached: Set<Element> = (window as any).__walk.reached;
    const modal = document.querySelector('dialog:modal');
    const scope = modal ?? document;
    const selector = [
      'a[href]',
      'button',
      'input:not([type=hidden])',
      'select',
      'textarea',
      'summary',
      '[role=button]',
      '[role=link]',
      '[role=checkbox]',
      '[role=combobox]',
      '[role=tab]',
      '[role=switch]',
      '[tabindex]:not([tabindex="-1"])',
      '[contenteditable]:not([contenteditable=false])',
    ].join(',');
    const visible = (el: Element) => el.checkVisibility({ visibilityProperty: true } as any);
    const controls = [...scope.querySelectorAll(selector)].filter(
      (el) => visible(el) && !el.matches(':disabled') && !el.closest('[inert]'),
    );
    const reachedIn = (group: Element[]) => group.some((el) => reached.has(el));
    return controls
      .filter((el) => {
        if (reached.has(el)) return false;
        const grid = el.closest('[role=grid]');
        if (grid) return !reachedIn([...grid.querySelectorAll('*')]);
        if (el instanceof HTMLInputElement && el.type === 'radio' && el.name) {
          return !reachedIn([...document.querySelectorAll(`input[type=radio][name="${CSS.escape(el.name)}"]`)]);
        }
        return true;
      })
      .map((el) => {
        const name =
          el.getAttribute('aria-label') ?? (el as HTMLInputElement).labels?.[0]?.textContent ?? el.textContent ?? '';
        return `${el.tagName.toLowerCase()} “${name.trim().replace(/\s+/g, ' ').slice(0, 60)}” (${el.outerHTML.slice(0, 120)})`;
      });
  });
  return { stops, missed, cycled };
}

/**
 * Issue 31: "every action reachable by keyboard alone". Tab from the top of the page goes round every control of
 * it, and each control it stops on shows that it has the focus.
 */
export async function expectEveryControlReachedByTab(page: Page, screen: string): Promise<void> {
  const walk = await walkWithTab(page);
  const path = walk.stops.map((s) => s.what);
  const shown = path.length > 60 ? [...path.slice(0, 30), '…', ...path.slice(-30)] : path;
  expect(walk.cycled, `${screen}: Tab came back to where it started; it went ${shown.join(' → ')}`).toBe(true);
  expect(walk.missed, `${screen}: controls Tab never reached`).toEqual([]);
  expect(
    walk.stops.filter((s) => !s.shown).map((s) => s.what),
    `${screen}: stops whose focus is not drawn`,
  ).toEqual([]);
  expect(
    walk.stops.filter((s) => s.escaped).map((s) => s.what),
    `${screen}: stops outside the open modal dialog`,
  ).toEqual([]);
}

/** A state of a screen as issue 31 wants each: axe at every impact at both widths, and Tab round every control. */
export async function expectAccessible(page: Page, state: string): Promise<void> {
  await expectNoAxeViolationsAtBothWidths(page, state);
  await expectEveryControlReachedByTab(page, state);
}
