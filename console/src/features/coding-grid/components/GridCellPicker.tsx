import { useEffect, useId, useState, type KeyboardEvent } from 'react';
import { shownError } from '../../../lib/errors';
import { useDebounced } from '../../../lib/use-debounced';
import { useFieldValueSearch } from '../../record/api/record';
import type { Choice } from '../grid-model';

interface GridCellPickerProps {
  fieldId: string;
  fieldName: string;
  /** Names the cell: "GL Account for Uber, line 1". */
  label: string;
  initial: Choice | null;
  onCommit: (choice: Choice | null) => void;
  onCancel: () => void;
  /** Tab (or Shift+Tab) while editing: the edit is dropped and the grid moves on. */
  onTab: (backwards: boolean) => void;
}

/**
 * The grid's type-ahead (a combobox, ARIA 1.2 list autocomplete) over one field's values: typing searches the
 * service; Enter takes the highlighted value, else the top match (when pressed before the answer came, once it
 * comes); arrows browse; Escape cancels; an emptied box and Enter removes the value.
 */
export function GridCellPicker({ fieldId, fieldName, label, initial, onCommit, onCancel, onTab }: GridCellPickerProps) {
  const id = useId();
  const listId = `${id}-values`;
  const [text, setText] = useState(initial?.label ?? '');
  const [typed, setTyped] = useState(false);
  const [active, setActive] = useState(-1);
  const [enterPending, setEnterPending] = useState(false);
  const query = useDebounced(text.trim(), 150);
  const search = useFieldValueSearch(fieldId, query, typed);
  const settled = typed && query === text.trim() && !search.isFetching && (search.isSuccess || search.isError);
  const options = typed && query === text.trim() ? (search.data?.items ?? []) : [];
  const showList = typed && options.length > 0;

  const take = (index: number) => {
    const option = options[index];
    if (option) onCommit({ svc_id: option.svc_id, label: option.value });
  };
  // Enter pressed while the answer for the text was on its way: the top match once it is here.
  useEffect(() => {
    if (!enterPending || !settled) return;
    setEnterPending(false);
    take(0);
  }, [enterPending, settled]);

  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    // Ctrl+S goes on to the page (it saves what is changed; this edit is not taken until Enter).
    if ((event.ctrlKey || event.metaKey) && event.key.toLowerCase() === 's') return;
    event.stopPropagation();
    if (event.key === 'ArrowDown') {
      event.preventDefault();
      if (options.length > 0) setActive((i) => Math.min(i + 1, options.length - 1));
    } else if (event.key === 'ArrowUp') {
      event.preventDefault();
      if (options.length > 0) setActive((i) => Math.max(i - 1, 0));
    } else if (event.key === 'Enter') {
      event.preventDefault();
      if (text.trim() === '') onCommit(null);
      else if (!typed) onCancel();
      else if (settled) take(active >= 0 ? active : 0);
      else setEnterPending(true);
    } else if (event.key === 'Escape') {
      event.preventDefault();
      onCancel();
    } else if (event.key === 'Tab') {
      event.preventDefault();
      onTab(event.shiftKey);
    }
  };

  let message: string | null = null;
  if (typed && query !== '') {
    if (search.isError) {
      const shown = shownError(search.error);
      message = `The values could not be searched: ${shown.message}`;
    } else if (!settled) message = 'Searching…';
    else if (options.length === 0) message = `No value of ${fieldName} matches “${text.trim()}”.`;
  }

  return (
    <div className="grid-picker">
      <input
        type="text"
        role="combobox"
        aria-label={label}
        aria-autocomplete="list"
        aria-expanded={showList}
        aria-controls={listId}
        aria-activedescendant={showList && active >= 0 ? `${listId}-${active}` : undefined}
        autoComplete="off"
        spellCheck={false}
        autoFocus
        value={text}
        onChange={(e) => {
          setText(e.target.value);
          setTyped(true);
          setActive(-1);
          setEnterPending(false);
        }}
        onKeyDown={onKeyDown}
        onBlur={onCancel}
      />
      <ul
        className="grid-picker-list"
        role="listbox"
        id={listId}
        aria-label={`Values of ${fieldName}`}
        hidden={!showList}
      >
        {showList &&
          options.map((option, index) => (
            <li
              key={option.svc_id}
              id={`${listId}-${index}`}
              role="option"
              aria-selected={index === active}
              className={index === active ? 'grid-picker-option active' : 'grid-picker-option'}
              onMouseDown={(e) => e.preventDefault()}
              onClick={() => take(index)}
            >
              {option.value}
            </li>
          ))}
      </ul>
      <p className="grid-picker-message" role="status">
        {message}
      </p>
    </div>
  );
}
