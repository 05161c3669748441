import { useId, useState } from 'react';
import { EmptyState } from '../../../components/EmptyState';
import { ErrorMessage } from '../../../components/ErrorMessage';
import { Loading } from '../../../components/Loading';
import { countOf } from '../../../lib/format';
import { useDebounced } from '../../../lib/use-debounced';
import { SEARCH_LIMIT, useValuePage, useValueSearch } from '../api/values';
import { ValuesTable } from './ValuesTable';

interface ValuesPanelProps {
  fieldId: string;
  fieldName: string;
  canEdit: boolean;
  canDelete: boolean;
}

/**
 * A field's values: page after page in creation order, or, with search text, the value search's matches
 * (starting with the text first, then containing it, in the value or its remote id; disabled ones included).
 */
export function ValuesPanel({ fieldId, fieldName, canEdit, canDelete }: ValuesPanelProps) {
  const id = useId();
  const [text, setText] = useState('');
  const query = useDebounced(text.trim(), 250);
  const [cursors, setCursors] = useState<string[]>([]);
  const [done, setDone] = useState<string | null>(null);
  const searching = query.length > 0;
  const page = useValuePage(fieldId, cursors.at(-1) ?? null, !searching);
  const search = useValueSearch(fieldId, query);
  const shown = searching ? search : page;
  const values = shown.data?.items ?? [];
  const nextCursor = !searching ? (page.data?.next_cursor ?? null) : null;

  return (
    <section className="card" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Values</h2>
      <form
        role="search"
        aria-label={`Search values of ${fieldName}`}
        className="values-search"
        onSubmit={(e) => e.preventDefault()}
      >
        <div className="field">
          <label htmlFor={`${id}-q`}>Search values</label>
          <input
            id={`${id}-q`}
            type="search"
            value={text}
            maxLength={255}
            placeholder="Text in the value or its remote id"
            onChange={(e) => {
              setText(e.target.value);
              setCursors([]);
            }}
          />
        </div>
      </form>
      {done && (
        <p className="notice notice-success" role="status">
          {done}
        </p>
      )}
      {shown.isPending && <Loading label="Loading values…" />}
      {shown.isError && (
        <ErrorMessage title={`The values of ${fieldName} could not be loaded.`} error={shown.error}>
          <button type="button" onClick={() => void shown.refetch()}>
            Try again
          </button>
        </ErrorMessage>
      )}
      {shown.data && values.length === 0 && (
        <EmptyState
          title={
            searching
              ? `No value of ${fieldName} matches “${query}”.`
              : cursors.length > 0
                ? 'No more values on this page.'
                : `${fieldName} has no values yet.`
          }
        >
          {!searching && canEdit && <p>Add one above, or import a CSV file.</p>}
        </EmptyState>
      )}
      {shown.data && values.length > 0 && (
        <>
          <p className="table-summary" role="status">
            {searching
              ? values.length >= SEARCH_LIMIT
                ? `The first ${SEARCH_LIMIT} values matching “${query}”: type more to narrow the search.`
                : `${countOf(values.length, 'value')} matching “${query}”.`
              : `${countOf(values.length, 'value')} on page ${cursors.length + 1}.`}
            {shown.isFetching ? ' (refreshing…)' : ''}
          </p>
          <ValuesTable
            fieldId={fieldId}
            fieldName={fieldName}
            values={values}
            canEdit={canEdit}
            canDelete={canDelete}
            onDone={setDone}
          />
        </>
      )}
      {!searching && page.data && (cursors.length > 0 || nextCursor) && (
        <nav className="pager" aria-label="Pages of values">
          <button
            type="button"
            disabled={cursors.length === 0 || page.isFetching}
            onClick={() => setCursors((c) => c.slice(0, -1))}
          >
            Previous page
          </button>
          <span>Page {cursors.length + 1}</span>
          <button
            type="button"
            disabled={!nextCursor || page.isFetching}
            onClick={() => nextCursor && setCursors((c) => [...c, nextCursor])}
          >
            Next page
          </button>
        </nav>
      )}
    </section>
  );
}
