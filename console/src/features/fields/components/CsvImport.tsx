import type { FieldValue } from '@svc/client';
import { useId, useMemo, useState, type ChangeEvent } from 'react';
import { ErrorMessage } from '../../../components/ErrorMessage';
import { countOf } from '../../../lib/format';
import { readValuesCsv, type ReadFile } from '../import/import-file';
import { existingByRemoteId, planImport, type ExistingRows } from '../import/plan';
import { firstRowLeft, fingerprintOf, forgetUnfinished, loadUnfinished, rowsLeft } from '../import/resume';
import { useValueImport } from '../import/use-value-import';
import { ImportPreview } from './ImportPreview';
import { ImportProgressBar } from './ImportProgressBar';
import { ImportReport } from './ImportReport';
import { ResumeOffer } from './ResumeOffer';

const SHOWN_PROBLEMS = 20;

interface ChosenFile {
  name: string;
  read: ReadFile;
  fingerprint: string;
}

function FileProblems({ file }: { file: ChosenFile & { read: { ok: false } } }) {
  const { problems } = file.read;
  return (
    <div className="notice notice-error" role="alert">
      <p className="notice-title">{file.name} cannot be imported; nothing was sent.</p>
      <ul>
        {problems.slice(0, SHOWN_PROBLEMS).map((p, i) => (
          <li key={i}>{p.row === null ? p.message : `Row ${p.row.toLocaleString('en-US')}: ${p.message}`}</li>
        ))}
      </ul>
      {problems.length > SHOWN_PROBLEMS && <p>…and {countOf(problems.length - SHOWN_PROBLEMS, 'more problem')}.</p>}
      <p>Fix the file and choose it again.</p>
    </div>
  );
}

/**
 * Import values from a CSV file: read and checked in the browser, previewed row by row against the field's values
 * (create, update by remote_id or skip what exists, unchanged, invalid with why) before anything is written, then
 * sent through the API's batch create and update with a progress bar and a result for every row.
 */
export function CsvImport({ fieldId, fieldName }: { fieldId: string; fieldName: string }) {
  const id = useId();
  const [file, setFile] = useState<ChosenFile | null>(null);
  const [reading, setReading] = useState(false);
  const [mode, setMode] = useState<ExistingRows>('skip');
  const [existing, setExisting] = useState<{ values: Map<string, FieldValue> } | { error: unknown } | null>(null);
  const { progress, running, start, stop, reset } = useValueImport(fieldId);
  // An import of this field that stopped before its end, kept by this browser (import/resume.ts).
  const [unfinished, setUnfinished] = useState(() => loadUnfinished(fieldId));

  const choose = async (event: ChangeEvent<HTMLInputElement>) => {
    const chosen = event.target.files?.[0];
    reset();
    setFile(null);
    setExisting(null);
    setUnfinished(loadUnfinished(fieldId));
    if (!chosen) return;
    setReading(true);
    try {
      const text = await chosen.text();
      const read = readValuesCsv(text);
      const fingerprint = fingerprintOf(text);
      const kept = loadUnfinished(fieldId);
      if (kept?.fingerprint === fingerprint) setMode(kept.mode);
      setFile({ name: chosen.name, read, fingerprint });
      // The field's values the rows' remote_ids name: read once per file, for the preview.
      if (read.ok) {
        try {
          setExisting({ values: await existingByRemoteId(fieldId, read.rows) });
        } catch (error) {
          setExisting({ error });
        }
      }
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      setFile({
        name: chosen.name,
        read: { ok: false, problems: [{ row: null, message: `It could not be read: ${message}` }] },
        fingerprint: '',
      });
    } finally {
      setReading(false);
    }
  };

  const read = file?.read;
  const planned = useMemo(
    () =>
      read?.ok && existing && 'values' in existing ? planImport(read.rows, read.invalid, existing.values, mode) : null,
    [read, existing, mode],
  );
  // The same file as the unfinished import's: it goes on from there (Resume), or the unfinished one is forgotten first.
  const resumable = file && unfinished && unfinished.fingerprint === file.fingerprint ? unfinished : null;
  const toSend = planned ? rowsLeft(planned, null).length : 0;
  const source = (resume: typeof unfinished) => ({
    fingerprint: file?.fingerprint ?? '',
    fileName: file?.name ?? '',
    mode,
    resume,
  });
  const startOver = () => {
    forgetUnfinished(fieldId);
    setUnfinished(null);
  };
  return (
    <section className="card" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Import values from CSV</h2>
      <p className="hint" id={`${id}-hint`}>
        The first row names the columns: <code>value</code> (required), and any of <code>remote_id</code>,{' '}
        <code>value_id</code>, <code>is_disabled</code> (true or false). One value per row; comma- or
        semicolon-separated, UTF-8. You see what each row would do before anything is written; a row the service refuses
        is listed with why, and the others are stored.
      </p>
      <div className="field">
        <label htmlFor={`${id}-file`}>CSV file</label>
        <input
          id={`${id}-file`}
          type="file"
          accept=".csv,text/csv"
          aria-describedby={`${id}-hint`}
          disabled={running}
          onChange={(event) => void choose(event)}
        />
      </div>
      <fieldset className="scope-groups" disabled={running || Boolean(progress) || Boolean(resumable)}>
        <legend>Rows whose remote_id the field has already</legend>
        <label className="check">
          <input type="radio" name={`${id}-mode`} checked={mode === 'skip'} onChange={() => setMode('skip')} /> Skip
          existing values
        </label>
        <label className="check">
          <input type="radio" name={`${id}-mode`} checked={mode === 'update'} onChange={() => setMode('update')} />{' '}
          Update existing values by remote_id
        </label>
      </fieldset>
      {unfinished && !progress && (
        <ResumeOffer
          unfinished={unfinished}
          fileChosen={Boolean(resumable && planned)}
          firstRow={resumable && planned ? firstRowLeft(planned, resumable) : null}
          onResume={() => planned && resumable && void start(planned, source(resumable))}
          onStartOver={startOver}
        />
      )}
      {reading && <p role="status">Reading the file…</p>}
      {file && read && !read.ok && <FileProblems file={{ ...file, read }} />}
      {existing && 'error' in existing && (
        <ErrorMessage title="The field's values could not be read for the preview." error={existing.error} />
      )}
      {file && planned && !progress && (
        <>
          <ImportPreview planned={planned} />
          <div className="button-row">
            <p className="import-ready">
              {file.name}: {countOf(planned.length, 'row')} for {fieldName}.
            </p>
            <button
              type="button"
              className="button-primary"
              disabled={toSend === 0 || Boolean(unfinished)}
              onClick={() => void start(planned, source(null))}
            >
              Import {countOf(toSend, 'row')}
            </button>
          </div>
        </>
      )}
      {progress && (
        <>
          <ImportProgressBar done={progress.done} total={progress.total} />
          {running && (
            <div className="button-row">
              <button type="button" onClick={stop}>
                Stop after this batch
              </button>
            </div>
          )}
        </>
      )}
      {progress && !running && <ImportReport progress={progress} />}
    </section>
  );
}
