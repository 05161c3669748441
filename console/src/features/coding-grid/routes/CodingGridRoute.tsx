import type { AccountingRecord, BulkCodingResult, RecordSearchQuery } from '@svc/client';
import { useEffect, useMemo, useRef, useState } from 'react';
import { EmptyState } from '../../../components/EmptyState';
import { ErrorMessage } from '../../../components/ErrorMessage';
import { Loading } from '../../../components/Loading';
import { PageHeading } from '../../../components/PageHeading';
import { RefreshFailed } from '../../../components/RefreshFailed';
import { describeMissingLines, recordProblems } from '../../../lib/errors';
import { plural } from '../../../lib/format';
import { useDebounced } from '../../../lib/use-debounced';
import { useCodingFields, useRequiredCoding } from '../../record/api/record';

import {
  GRID_PAGE_RECORDS,
  MoveStopped,
  useBulkCoding,
  useGridPage,
  useGridSuggestions,
  useMoveRecords,
} from '../api/grid';
import { CodingGridTable } from '../components/CodingGridTable';
import { GridActions, GridFilters, type GridStatus } from '../components/GridToolbar';
import { KEY_HELP } from '../grid-keys';
import { changedItems, refusalWords, rowsOf, suggestionsOf } from '../grid-model';
import { useGridEdits } from '../use-grid-edits';
import '../coding-grid.css';

/** The saved record, as the grid shows records: its economic lines only (those of the page's single-entry form). */
function asShown(saved: AccountingRecord, shown: AccountingRecord): AccountingRecord {
  const ids = new Set(shown.line_items.map((l) => l.id));
  return { ...saved, line_items: saved.line_items.filter((l) => ids.has(l.id)) };
}

/**
 * The coding grid: the lines of the records under review, a page at a time, coded from the keyboard; the changed
 * records saved in one request (each at the version shown; a refused one says why on its rows, the rest saved);
 * the selected rows' records approved together.
 */
export function CodingGridRoute() {
  const [status, setStatus] = useState<GridStatus>('REVIEW');
  const [vendorText, setVendorText] = useState('');
  const vendor = useDebounced(vendorText.trim(), 300);
  const [cursors, setCursors] = useState<string[]>([]);
  const query = useMemo<RecordSearchQuery>(
    () => ({
      review_status: status,
      sort: 'posted_at',
      single_entry: true,
      limit: GRID_PAGE_RECORDS,
      ...(vendor ? { vendor } : {}),
      ...(cursors.length > 0 ? { cursor: cursors.at(-1) } : {}),
    }),
    [status, vendor, cursors],
  );
  const page = useGridPage(query);
  const required = useRequiredCoding();
  const allFields = useCodingFields();
  const fields = useMemo(() => {
    const all = allFields.data ?? [];
    const wanted = new Set((required.data?.items ?? []).map((f) => f.field_id));
    return wanted.size === 0 ? all : all.filter((f) => wanted.has(f.svc_id));
  }, [allFields.data, required.data]);

  // Records as saved by this page since it was read (newer than the page's copy).
  const [saved, setSaved] = useState<ReadonlyMap<string, AccountingRecord>>(new Map());
  const records = useMemo(
    () =>
      (page.data?.items ?? []).map((r) => {
        const mine = saved.get(r.id);
        return mine && mine.version > r.version ? asShown(mine, r) : r;
      }),
    [page.data, saved],
  );
  const rows = useMemo(() => rowsOf(records), [records]);
  const recordIds = useMemo(() => (page.data?.items ?? []).map((r) => r.id), [page.data]);
  const suggestionPage = useGridSuggestions(recordIds);
  const suggestions = useMemo(() => suggestionsOf(suggestionPage.data ?? []), [suggestionPage.data]);

  const grid = useGridEdits(rows, fields, suggestions);
  const [refusals, setRefusals] = useState<ReadonlyMap<string, string>>(new Map());
  const [outcome, setOutcome] = useState<string | null>(null);
  const bulkCoding = useBulkCoding();
  const move = useMoveRecords();
  const items = changedItems(rows, fields, grid.edits);
  const dirty = items.length > 0;

  const save = () => {
    if (items.length === 0 || bulkCoding.isPending) return;
    setOutcome(null);
    bulkCoding.mutate(items, {
      onSuccess: (results: BulkCodingResult[]) => {
        const savedNow = new Map(saved);
        const refused = new Map<string, string>();
        for (const result of results) {
          if (result.status === 'SAVED') savedNow.set(result.record_id, result.record);
          else refused.set(result.record_id, refusalWords(result));
        }
        setSaved(savedNow);
        setRefusals(refused);
        // The saved records' edits are now what is stored; a refused record keeps its edits, to try again.
        const savedIds = new Set(results.filter((r) => r.status === 'SAVED').map((r) => r.record_id));
        grid.setEdits((edits) => new Map([...edits].filter(([key]) => !savedIds.has(key.split(' ')[0]!))));
        const count = savedIds.size;
        setOutcome(
          refused.size === 0
            ? `${plural(count, 'record')} saved.`
            : `${plural(count, 'record')} saved; ${plural(refused.size, 'record')} not saved (the reason is on its rows).`,
        );
      },
    });
  };
  // Ctrl+S (⌘S) anywhere on the page saves.
  const saveRef = useRef(save);
  saveRef.current = save;
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if ((event.ctrlKey || event.metaKey) && (event.key === 's' || event.key === 'S')) {
        event.preventDefault();
        saveRef.current();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  const approve = () => {
    const chosen = records.filter((r) => rows.some((row) => row.record.id === r.id && grid.selected.has(row.key)));
    if (chosen.length === 0) return;
    if (chosen.some((r) => items.some((i) => i.record_id === r.id))) {
      setOutcome('Save the changes of the selected records before approving them.');
      return;
    }
    setOutcome(null);
    // A record in Prepare is submitted for review first (the lifecycle goes one step at a time).
    const steps = status === 'PREPARE' ? (['REVIEW', 'READY_FOR_EXPORT'] as const) : (['READY_FOR_EXPORT'] as const);
    move.mutate(
      { steps, records: chosen.map((r) => ({ id: r.id, version: r.version })) },
      {
        onSuccess: (answer) => {
          grid.setSelected(new Set());
          setSaved(new Map());
          setRefusals(new Map());
          setOutcome(`${plural(answer.items.length, 'record')} approved (now Ready for export).`);
        },
        onError: (failure) => {
          const stopped = failure instanceof MoveStopped ? failure : null;
          const error = stopped ? stopped.cause : failure;
          const problems = recordProblems(error);
          const words = new Map<string, string>();
          for (const [id, p] of problems) {
            const lines = p.lines && p.lines.length > 0 ? ` (${describeMissingLines(p.lines)})` : '';
            words.set(id, `Not approved: ${p.message}${lines}`);
          }
          setRefusals(words);
          const submitted = stopped ? ` ${plural(stopped.records, 'record')} submitted for review, none approved:` : '';
          setOutcome(
            `Nothing was approved:${submitted} ${plural(problems.size, 'record')} cannot be (the reason is on its rows).`,
          );
        },
      },
    );
  };

  const changeView = (next: () => void) => {
    next();
    grid.setSelected(new Set());
    grid.setActive({ row: 0, col: 0 });
    setRefusals(new Map());
    setOutcome(null);
  };

  let body;
  if (page.isPending || allFields.isPending || required.isPending) body = <Loading label="Loading the lines…" />;
  else if (page.data === undefined) body = <ErrorMessage title="The lines could not be loaded." error={page.error} />;
  else if (allFields.data === undefined) {
    body = <ErrorMessage title="The fields could not be loaded." error={allFields.error} />;
  } else if (rows.length === 0) body = <EmptyState title="No line to code here." />;
  else if (fields.length === 0) body = <EmptyState title="The account has no field to code lines with." />;
  else
    body = (
      <div className="scroll-region grid-region">
        <CodingGridTable rows={rows} fields={fields} suggestions={suggestions} grid={grid} refusals={refusals} />
      </div>
    );

  return (
    <div className="coding-grid-page">
      <PageHeading title="Coding grid" />
      <GridFilters
        status={status}
        vendor={vendorText}
        disabled={dirty}
        onStatus={(s) =>
          changeView(() => {
            setStatus(s);
            setCursors([]);
          })
        }
        onVendor={(v) =>
          changeView(() => {
            setVendorText(v);
            setCursors([]);
          })
        }
      />
      <GridActions
        changedRecords={items.length}
        selectedRows={grid.selected.size}
        saving={bulkCoding.isPending}
        approving={move.isPending}
        approveLabel={status === 'PREPARE' ? 'Submit and approve selected' : 'Approve selected'}
        onAcceptAll={grid.acceptAll}
        onApplyToSelected={grid.applyToSelected}
        onSave={save}
        onDiscard={() => grid.setEdits(new Map())}
        onApprove={approve}
      />
      <p className="grid-outcome" role="status">
        {outcome}
      </p>
      {bulkCoding.isError && <ErrorMessage title="Nothing was saved." error={bulkCoding.error} />}
      {suggestionPage.isError && (
        <ErrorMessage title="The suggestions could not be loaded." error={suggestionPage.error} />
      )}
      <RefreshFailed what="The lines or the fields" queries={[page, allFields]} />
      {body}
      <nav className="pager" aria-label="Pages of lines">
        <button
          type="button"
          disabled={cursors.length === 0 || dirty}
          onClick={() => changeView(() => setCursors(cursors.slice(0, -1)))}
        >
          Previous page
        </button>
        <span>Page {cursors.length + 1}</span>
        <button
          type="button"
          disabled={!page.data?.has_next_page || dirty}
          onClick={() => {
            const next = page.data?.next_cursor;
            if (next) changeView(() => setCursors([...cursors, next]));
          }}
        >
          Next page
        </button>
      </nav>
      <details className="grid-keys">
        <summary>Keys</summary>
        <dl>
          {KEY_HELP.map(([key, what]) => (
            <div key={key}>
              <dt>{key}</dt>
              <dd>{what}</dd>
            </div>
          ))}
        </dl>
      </details>
    </div>
  );
}
