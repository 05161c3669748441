import { useId, useState, type ChangeEvent } from 'react';
import { countOf } from '../../../lib/format';
import { readValuesCsv, type ReadFile } from '../import/import-file';
import { useValueImport } from '../import/use-value-import';
import { ImportProgressBar } from './ImportProgressBar';
import { ImportReport } from './ImportReport';

const SHOWN_PROBLEMS = 20;

interface ChosenFile {
  name: string;
  read: ReadFile;
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
 * Import values from a CSV file: read and checked in the browser, then sent in batches of at most 1000 through
 * the API's batch create (each all or nothing), with a progress bar and a report of the refused rows and why.
 */
export function CsvImport({ fieldId, fieldName }: { fieldId: string; fieldName: string }) {
  const id = useId();
  const [file, setFile] = useState<ChosenFile | null>(null);
  const [reading, setReading] = useState(false);
  const { progress, running, start, stop, reset } = useValueImport(fieldId);

  const choose = async (event: ChangeEvent<HTMLInputElement>) => {
    const chosen = event.target.files?.[0];
    reset();
    setFile(null);
    if (!chosen) return;
    setReading(true);
    try {
      setFile({ name: chosen.name, read: readValuesCsv(await chosen.text()) });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      setFile({
        name: chosen.name,
        read: { ok: false, problems: [{ row: null, message: `It could not be read: ${message}` }] },
      });
    } finally {
      setReading(false);
    }
  };

  const read = file?.read;
  return (
    <section className="card" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Import values from CSV</h2>
      <p className="hint" id={`${id}-hint`}>
        The first row names the columns: <code>value</code> (required), and any of <code>remote_id</code>,{' '}
        <code>value_id</code>, <code>is_disabled</code> (true or false). One value per row; comma- or
        semicolon-separated, UTF-8. Rows are sent 1,000 at a time: a batch with a refused row stores nothing, the others
        are stored.
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
      {reading && <p role="status">Reading the file…</p>}
      {file && read && !read.ok && <FileProblems file={{ ...file, read }} />}
      {file && read?.ok && !progress && (
        <div className="button-row">
          <p className="import-ready" role="status">
            {file.name}: {countOf(read.rows.length, 'value')} for {fieldName}, in{' '}
            {countOf(read.batches.length, 'batch', 'batches')}.
          </p>
          <button type="button" className="button-primary" onClick={() => void start(read.batches)}>
            Import {countOf(read.rows.length, 'value')}
          </button>
        </div>
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
      {progress && !running && read?.ok && <ImportReport progress={progress} batches={read.batches} />}
    </section>
  );
}
