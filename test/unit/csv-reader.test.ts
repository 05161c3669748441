import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CsvSyntaxError, readCsv } from '../../client/src/integration/csv.js';
import { appendExport, idsIn, referencesIn } from '../../client/src/integration/export-file.js';
import { csvField } from '../../src/modules/exports/exports.csv.js';

/** Text with what CSV must quote, often: commas, quotes, CR, LF, CRLF, spaces. */
const cellText = fc
  .array(fc.oneof(fc.constantFrom(',', '"', '\r', '\n', '\r\n', ' ', '""', 'accr_1'), fc.string({ maxLength: 4 })), {
    maxLength: 8,
  })
  .map((parts) => parts.join(''));
const table = fc.array(fc.array(cellText, { minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 8 });
const write = (rows: string[][]) => rows.map((r) => r.map(csvField).join(',')).join('\r\n') + '\r\n';

describe('readCsv (RFC 4180, as the export writers quote)', () => {
  it("reads back every table the service's writer prints: fields, rows, each row's raw text", () => {
    fc.assert(
      fc.property(table, (rows) => {
        // A row of one empty field prints as an empty line, which is no row: the writers never print one.
        fc.pre(rows.every((r) => r.length > 1 || r[0] !== ''));
        const text = write(rows);
        const read = readCsv(text);
        expect(read.map((r) => r.fields)).toEqual(rows);
        expect(read.map((r) => r.raw).join('\r\n') + '\r\n').toBe(text);
      }),
      { numRuns: 500 },
    );
  });

  it('numbers each row by the line it starts on, line feeds inside quoted fields counted', () => {
    fc.assert(
      fc.property(table, (rows) => {
        fc.pre(rows.every((r) => r.length > 1 || r[0] !== ''));
        const text = write(rows);
        let offset = 0;
        for (const row of readCsv(text)) {
          expect(row.line).toBe(text.slice(0, offset).split('\n').length);
          offset += row.raw.length + 2;
        }
      }),
      { numRuns: 300 },
    );
  });

  it('takes LF line ends and a last row without one; refuses an unclosed quote or text after one', () => {
    expect(readCsv('a,b\nc,"d\ne"').map((r) => r.fields)).toEqual([
      ['a', 'b'],
      ['c', 'd\ne'],
    ]);
    expect(readCsv('')).toEqual([]);
    expect(() => readCsv('a,"b\r\n')).toThrow(CsvSyntaxError);
    expect(() => readCsv('a,"b"c\r\n')).toThrow(CsvSyntaxError);
    expect(() => readCsv('a,b"c\r\n')).toThrow(CsvSyntaxError);
  });
});

describe('svc export on CSV files whose memos break lines', () => {
  const header = 'reference,date,memo';
  const file = (...rows: string[][]) => write([header.split(','), ...rows]);
  const tricky = ['line one\nline', 'crlf\r\nline', 'say "hi", then\n"bye"', 'accr_9 looks like an id\r\n'];

  it('finds each record id once, and never a word of a memo', () => {
    const text = file(...tricky.map((memo, i) => [`accr_${i}`, '2026-06-11', memo]), ['accr_0', '2026-06-11', 'x']);
    expect([...idsIn('csv', text)]).toEqual(['accr_0', 'accr_1', 'accr_2', 'accr_3']);
    expect(referencesIn('csv', '/tmp/books.csv', text)).toEqual(
      new Map([
        ['accr_0', 'books.csv:2'],
        ['accr_1', 'books.csv:4'],
        ['accr_2', 'books.csv:6'],
        ['accr_3', 'books.csv:8'],
      ]),
    );
  });

  it('appends only the records the file lacks, their rows whole', () => {
    const existing = file(['accr_0', '2026-06-11', tricky[0]!], ['accr_1', '2026-06-11', tricky[1]!]);
    const fresh = file(
      ['accr_1', '2026-06-11', tricky[1]!],
      ['accr_2', '2026-06-12', tricky[2]!],
      ['accr_2', '2026-06-12', tricky[3]!],
    );
    const appended = appendExport('csv', existing, fresh);
    expect(appended).toEqual({
      text:
        existing +
        write([
          ['accr_2', '2026-06-12', tricky[2]!],
          ['accr_2', '2026-06-12', tricky[3]!],
        ]),
      added: ['accr_2'],
      present: ['accr_1'],
    });
    expect(readCsv(appended.text).map((r) => r.fields[0])).toEqual([
      'reference',
      'accr_0',
      'accr_1',
      'accr_2',
      'accr_2',
    ]);
  });
});

describe('svc export on a Xero file', () => {
  const header = 'Narration,Date,Description,AccountCode,TaxRate,Amount';
  const rows = (from: number, n: number) =>
    Array.from({ length: n }, (_, i) => [
      `accr_${from + i} Vendor`,
      '11/06/2026',
      'x\ny',
      '6010',
      'Tax Exempt',
      '1.00',
    ]);
  const file = (r: string[][]) => write([header.split(','), ...r]);

  it('appends up to 300 lines, and refuses a file that would pass them, naming the count', () => {
    const existing = file(rows(0, 299));
    expect(appendExport('xero', existing, file(rows(299, 1))).added).toEqual(['accr_299']);
    expect(() => appendExport('xero', existing, file(rows(299, 2)))).toThrow(
      'the file would hold 301 journal lines and Xero imports at most 300 in one file: export into a new file (--out), or fewer records (--from/--to, --record)',
    );
    // Rows the file holds already are no new lines.
    expect(appendExport('xero', existing, file(rows(0, 299))).present).toHaveLength(299);
  });
});
