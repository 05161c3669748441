import Papa from 'papaparse';

/**
 * CSV for the value import, read and written by papaparse (RFC 4180: cells quoted with "", a quote inside doubled,
 * line breaks inside quoted cells kept, a UTF-8 byte order mark ignored). On top, what the import adds: the
 * delimiter is a comma or, as spreadsheets in many locales save them, a semicolon, chosen from the header line;
 * records are numbered as a spreadsheet numbers its rows; a quote that is never closed is an error with its row.
 */

export interface CsvRecord {
  /** 1-based, counting the header as row 1 and every line-separated record, blank ones included (a spreadsheet's row numbers). */
  row: number;
  cells: string[];
}

export interface CsvTable {
  delimiter: ',' | ';';
  records: CsvRecord[];
  /** Set when the text could not be read to its end. */
  error: { row: number; message: string } | null;
}

/** The delimiter of the header line: a semicolon only when the line has semicolons and no commas. */
function sniffDelimiter(text: string): ',' | ';' {
  const end = text.search(/\r?\n|\r/);
  const header = end === -1 ? text : text.slice(0, end);
  return header.includes(';') && !header.includes(',') ? ';' : ',';
}

/**
 * papaparse reads one kind of line end per file, the one it finds outside quoted cells. A file pasted together
 * from two systems mixes them (CRLF and LF): then every line end, those in quoted cells too, is read as LF.
 */
function oneKindOfLineEnd(text: string): string {
  const outsideQuotes = text.replace(/"[^"]*"/g, '');
  const kinds = new Set(outsideQuotes.match(/\r\n|\r|\n/g));
  return kinds.size > 1 ? text.replace(/\r\n?/g, '\n') : text;
}

const QUOTE_PROBLEMS: Readonly<Record<string, string>> = {
  MissingQuotes: 'a quoted cell is never closed (a " is missing)',
  InvalidQuotes: 'a quoted cell has text after its closing quote (a quote inside a cell is written "")',
};

export function parseCsv(input: string): CsvTable {
  const delimiter = sniffDelimiter(input);
  const text = oneKindOfLineEnd(input);
  const { data, errors } = Papa.parse<string[]>(text, { delimiter, quoteChar: '"', skipEmptyLines: false });
  // A text that ends with a line break has no record after it (papaparse gives an empty one).
  const cells = /[\r\n]$/.test(text) && data.at(-1)?.join('') === '' ? data.slice(0, -1) : data;
  const records = cells.map((c, i) => ({ row: i + 1, cells: c }));
  const [first] = errors;
  const error = first ? { row: (first.row ?? 0) + 1, message: QUOTE_PROBLEMS[first.code] ?? first.message } : null;
  return { delimiter, records, error };
}

/** Whether a record has nothing in it (a blank line, or only delimiters). */
export function isBlank(record: CsvRecord): boolean {
  return record.cells.every((c) => c.trim() === '');
}

/**
 * A CSV of `columns` and `rows`, CRLF line ends. papaparse quotes a cell with a comma, quote or line break; a
 * semicolon (for spreadsheets that split on it) and spaces at either end (which some trim) are quoted too.
 */
export function writeCsv(columns: readonly string[], rows: string[][]): string {
  const quotes = (value: unknown) => typeof value === 'string' && (value.includes(';') || value !== value.trim());
  return `${Papa.unparse({ fields: [...columns], data: rows }, { newline: '\r\n', quotes })}\r\n`;
}
