/**
 * A reader of RFC 4180 CSV, as svc's writers print it (src/modules/exports/exports.csv.ts): fields separated by
 * commas, rows ended by CRLF (a bare LF is taken too), a field quoted when it holds a comma, a quote or a line
 * break, a quote inside written twice. A quoted field may hold line breaks, so a row is not a line: `svc export`
 * finds record ids and counts rows with this, never by splitting the text on line ends. Small and dependency-free,
 * as the rest of the client; its round trip with the writer is property-tested (test/unit/csv-reader.test.ts).
 */

export interface CsvRow {
  fields: string[];
  /** The row's text as it stands in the file, without its line end. */
  raw: string;
  /** The 1-based line of the file the row starts on (line breaks inside quoted fields counted). */
  line: number;
}

export class CsvSyntaxError extends Error {
  override name = 'CsvSyntaxError';
}

/** Every row of `text`; a last row without a line end counts, an empty text (or a lone line end) has none. */
export function readCsv(text: string): CsvRow[] {
  const rows: CsvRow[] = [];
  let i = 0;
  let line = 1;
  while (i < text.length) {
    const start = i;
    const startLine = line;
    const fields: string[] = [];
    for (;;) {
      let field = '';
      if (text[i] === '"') {
        i++;
        for (;;) {
          const quote = text.indexOf('"', i);
          if (quote === -1) throw new CsvSyntaxError(`line ${startLine}: a quoted field is never closed`);
          const chunk = text.slice(i, quote);
          field += chunk;
          line += countBreaks(chunk);
          if (text[quote + 1] === '"') {
            field += '"';
            i = quote + 2;
          } else {
            i = quote + 1;
            break;
          }
        }
        if (i < text.length && text[i] !== ',' && text[i] !== '\r' && text[i] !== '\n') {
          throw new CsvSyntaxError(`line ${line}: text after a quoted field`);
        }
      } else {
        let end = i;
        while (end < text.length && text[end] !== ',' && text[end] !== '\r' && text[end] !== '\n') {
          if (text[end] === '"') throw new CsvSyntaxError(`line ${line}: a quote inside an unquoted field`);
          end++;
        }
        field = text.slice(i, end);
        i = end;
      }
      fields.push(field);
      if (text[i] === ',') {
        i++;
        continue;
      }
      break;
    }
    const rawEnd = i;
    if (text[i] === '\r' && text[i + 1] === '\n') i += 2;
    else if (text[i] === '\r' || text[i] === '\n') i += 1;
    if (text[i - 1] === '\n' && i > rawEnd) line++;
    rows.push({ fields, raw: text.slice(start, rawEnd), line: startLine });
  }
  return rows;
}

/** Lines are counted by their LF, as editors and `wc -l` count a CRLF file's. */
function countBreaks(text: string): number {
  let n = 0;
  for (let k = text.indexOf('\n'); k !== -1; k = text.indexOf('\n', k + 1)) n++;
  return n;
}
