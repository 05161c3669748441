/** The grid's keys, as the actions they stand for (the page's help lists them). */
export type GridAction =
  | { type: 'move'; rows: number; cols: number }
  | { type: 'home' | 'end' }
  | { type: 'tab'; backwards: boolean }
  | { type: 'edit' | 'clear' | 'toggle' | 'copyDown' | 'accept' | 'acceptAll' | 'applyToSelected' | 'selectAll' };

interface Keys {
  key: string;
  shiftKey: boolean;
  ctrlKey: boolean;
  metaKey: boolean;
  altKey: boolean;
}

export function gridAction(e: Keys): GridAction | null {
  const mod = e.ctrlKey || e.metaKey;
  if (e.altKey) return null;
  if (mod) {
    if (e.key === 'd' || e.key === 'D') return { type: 'copyDown' };
    if (e.key === 'Enter') return { type: 'applyToSelected' };
    if (e.key === 'a' || e.key === 'A') return { type: 'selectAll' };
    return null;
  }
  switch (e.key) {
    case 'ArrowUp':
      return { type: 'move', rows: -1, cols: 0 };
    case 'ArrowDown':
      return { type: 'move', rows: 1, cols: 0 };
    case 'ArrowLeft':
      return { type: 'move', rows: 0, cols: -1 };
    case 'ArrowRight':
      return { type: 'move', rows: 0, cols: 1 };
    case 'PageUp':
      return { type: 'move', rows: -10, cols: 0 };
    case 'PageDown':
      return { type: 'move', rows: 10, cols: 0 };
    case 'Home':
      return { type: 'home' };
    case 'End':
      return { type: 'end' };
    case 'Tab':
      return { type: 'tab', backwards: e.shiftKey };
    case 'Enter':
    case 'F2':
      return { type: 'edit' };
    case 'Delete':
    case 'Backspace':
      return { type: 'clear' };
    case ' ':
      return { type: 'toggle' };
    case 'a':
      return { type: 'accept' };
    case 'A':
      return e.shiftKey ? { type: 'acceptAll' } : null;
    default:
      return null;
  }
}

/** The keys, for the page's help. */
export const KEY_HELP: readonly [string, string][] = [
  ['Arrow keys, Page Up/Down, Home/End', 'move between cells'],
  ['Enter', 'edit the cell: type, then Enter takes the top match (arrows browse the matches); Escape cancels'],
  ['Tab', 'next cell to the right'],
  ['A', 'accept the suggestion shown in the cell'],
  ['Shift+A', 'accept every suggestion on the page'],
  ['Ctrl+D', 'copy the value of the cell above'],
  ['Space', 'select or unselect the row; Ctrl+A selects every row'],
  ['Ctrl+Enter', "set the cell's value on every selected row"],
  ['Delete', 'remove the value'],
  ['Ctrl+S', 'save every changed record'],
];
