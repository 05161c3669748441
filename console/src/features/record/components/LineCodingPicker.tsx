import { useEffect, useId, useState, type KeyboardEvent } from 'react';
import { shownError } from '../../../lib/errors';
import { useDebounced } from '../../../lib/use-debounced';
import { useFieldValueSearch } from '../api/record';

/** A value chosen for a field: its svc_id, and its name to show. */
export interface CodingChoice {
  svc_id: string;
  label: string;
}

interface LineCodingPickerProps {
  fieldId: string;
  fieldName: string;
  /** The line it codes (named in the accessible name: "GL Account for line 1"); none for a rule's action. */
  lineNumber?: number;
  value: CodingChoice | null;
  onChange: (value: CodingChoice | null) => void;
  /** The id of a hint shared by every picker of the form. */
  hintId: string;
  /** The id of a refusal's words about this value, when there are some (the box is then marked invalid). */
  errorId?: string;
}

/**
 * A combobox (ARIA 1.2, list autocomplete) over one field's values for one line: typing searches the service
 * (values starting with the text first, then containing it); arrows move through the answers, Enter or a click
 * picks one (Enter with none highlighted, the top match: when pressed before the answer came, once it comes; typed
 * text never submits the form), Escape goes back to the line's value. Emptying the box removes the field from the
 * line's coding.
 */
export function LineCodingPicker({
  fieldId,
  fieldName,
  lineNumber,
  value,
  onChange,
  hintId,
  errorId,
}: LineCodingPickerProps) {
  const id = useId();
  const listId = `${id}-values`;
  const [text, setText] = useState(value?.label ?? '');
  const [typed, setTyped] = useState(false);
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(-1);
  const [enterPending, setEnterPending] = useState(false);
  // A value set from outside (changes discarded) shows, unless the user is typing.
  const valueLabel = value?.label ?? '';
  useEffect(() => {
    if (!typed) setText(valueLabel);
  }, [valueLabel]);
  const query = useDebounced(text.trim(), 150);
  const search = useFieldValueSearch(fieldId, query, typed);
  const options = typed && query === text.trim() ? (search.data?.items ?? []) : [];
  const showList = open && typed && options.length > 0;
  const settled = typed && query === text.trim() && !search.isFetching && (search.isSuccess || search.isError);

  const choose = (index: number) => {
    const option = options[index];
    if (!option) return;
    onChange({ svc_id: option.svc_id, label: option.value });
    setText(option.value);
    setTyped(false);
    setOpen(false);
    setActive(-1);
  };
  // Enter pressed while the answer for the text was on its way: the top match once it is here (none: the box says
  // that nothing matches).
  useEffect(() => {
    if (!enterPending || !settled) return;
    setEnterPending(false);
    choose(0);
  }, [enterPending, settled]);
  const revert = () => {
    setText(value?.label ?? '');
    setEnterPending(false);
    setTyped(false);
    setOpen(false);
    setActive(-1);
  };
  const leave = () => {
    if (typed && text.trim() === '') {
      onChange(null);
      setTyped(false);
      setOpen(false);
      setActive(-1);
    } else if (typed) {
      revert();
    } else {
      setOpen(false);
    }
  };

  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === 'ArrowDown') {
      event.preventDefault();
      setOpen(true);
      if (options.length > 0) setActive((i) => Math.min(i + 1, options.length - 1));
    } else if (event.key === 'ArrowUp') {
      event.preventDefault();
      if (options.length > 0) setActive((i) => Math.max(i - 1, 0));
    } else if (event.key === 'Enter' && showList && active >= 0) {
      event.preventDefault();
      choose(active);
    } else if (event.key === 'Enter' && typed) {
      event.preventDefault();
      if (text.trim() === '') leave();
      else if (settled) choose(0);
      else setEnterPending(true);
    } else if (event.key === 'Escape' && (open || typed)) {
      event.preventDefault();
      revert();
    }
  };

  let message: string | null = null;
  if (open && typed && query !== '') {
    if (search.isError) {
      const shown = shownError(search.error);
      message = `The values could not be searched: ${shown.message}${shown.requestId ? ` (request id ${shown.requestId})` : ''}`;
    } else if (search.isFetching || query !== text.trim()) message = 'Searching…';
    else if (options.length === 0) message = `No value of ${fieldName} matches “${text.trim()}”.`;
  }

  return (
    <div className="combobox">
      <label htmlFor={id}>
        {fieldName}
        {lineNumber !== undefined && <span className="visually-hidden"> for line {lineNumber}</span>}
      </label>
      <input
        id={id}
        type="text"
        role="combobox"
        aria-autocomplete="list"
        aria-expanded={showList}
        aria-controls={listId}
        aria-activedescendant={showList && active >= 0 ? `${listId}-${active}` : undefined}
        aria-describedby={errorId ? `${hintId} ${errorId}` : hintId}
        aria-invalid={errorId ? true : undefined}
        autoComplete="off"
        spellCheck={false}
        placeholder="Type to search"
        value={text}
        onChange={(e) => {
          setText(e.target.value);
          setTyped(true);
          setOpen(true);
          setActive(-1);
          setEnterPending(false);
        }}
        onKeyDown={onKeyDown}
        onBlur={leave}
      />
      <ul className="combobox-list" role="listbox" id={listId} aria-label={`Values of ${fieldName}`} hidden={!showList}>
        {showList &&
          options.map((option, index) => (
            <li
              key={option.svc_id}
              id={`${listId}-${index}`}
              role="option"
              aria-selected={index === active}
              className={index === active ? 'combobox-option active' : 'combobox-option'}
              onMouseDown={(e) => e.preventDefault()}
              onClick={() => choose(index)}
            >
              {option.value}
              {option.remote_id && <span className="option-sub"> · {option.remote_id}</span>}
            </li>
          ))}
      </ul>
      <p className="combobox-message" role="status">
        {message}
      </p>
    </div>
  );
}
