import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isBlank, parseCsv, writeCsv } from '../../console/src/features/fields/import/csv.js';

const cellsOf = (text: string) => parseCsv(text).records.map((r) => r.cells);

describe("the console's CSV reader (value import)", () => {
  it('reads quoted cells, doubled quotes, line breaks inside quotes, CRLF and a byte order mark', () => {
    expect(cellsOf('\uFEFFvalue,remote_id\r\n"Travel, domestic",6100\r\n"Say ""hi""",\n"two\nlines",x')).toEqual([
      ['value', 'remote_id'],
      ['Travel, domestic', '6100'],
      ['Say "hi"', ''],
      ['two\nlines', 'x'],
    ]);
  });

  it('numbers records as a spreadsheet numbers its rows: the header is row 1, blank rows count', () => {
    const table = parseCsv('value\na\n\n"b\nc"\nd\n');
    expect(table.records.map((r) => [r.row, r.cells])).toEqual([
      [1, ['value']],
      [2, ['a']],
      [3, ['']],
      [4, ['b\nc']],
      [5, ['d']],
    ]);
    expect(table.records.filter(isBlank).map((r) => r.row)).toEqual([3]);
    expect(table.error).toBeNull();
  });

  it('takes semicolons when the header line has them and no comma', () => {
    const table = parseCsv('remote_id;value\nP-1;Apollo, phase 1\n');
    expect(table.delimiter).toBe(';');
    expect(table.records.map((r) => r.cells)).toEqual([
      ['remote_id', 'value'],
      ['P-1', 'Apollo, phase 1'],
    ]);
  });

  it('keeps a stray quote inside an unquoted cell, and names the row where a quote is never closed', () => {
    expect(cellsOf('value\n5" screen\n')).toEqual([['value'], ['5" screen']]);
    expect(parseCsv('value\nok\n"never closed\nmore\n').error).toEqual({
      row: 3,
      message: 'a quoted cell is never closed (a " is missing)',
    });
  });

  it('reads files of CR line ends (older Mac spreadsheets), and reads every line end of a file that mixes them as LF', () => {
    expect(cellsOf('value;remote_id\r"a\rb";1\rc;2\r')).toEqual([
      ['value', 'remote_id'],
      ['a\rb', '1'],
      ['c', '2'],
    ]);
    // papaparse takes one kind of line end a file: two files pasted together would otherwise lose rows.
    expect(cellsOf('value\r\na\nb\r\n"c\r\nd"\n')).toEqual([['value'], ['a'], ['b'], ['c\nd']]);
  });

  it('refuses text after a closing quote, on its row, rather than guess where the cell ends', () => {
    expect(parseCsv('value\nok\n"a"b\n').error).toEqual({
      row: 3,
      message: 'a quoted cell has text after its closing quote (a quote inside a cell is written "")',
    });
  });

  it('writes CRLF lines, quoting what a spreadsheet would split or trim', () => {
    expect(
      writeCsv(
        ['value', 'remote_id'],
        [
          ['Travel, domestic', 'a;b'],
          ['Say "hi"', ' padded\t'],
          ['two\nlines', 'plain'],
        ],
      ),
    ).toBe('value,remote_id\r\n"Travel, domestic","a;b"\r\n"Say ""hi"""," padded\t"\r\n"two\nlines",plain\r\n');
  });

  it('reads back any table it writes', () => {
    const text = fc.string({ unit: fc.constantFrom('a', 'b', ' ', ',', ';', '"', '\n', '\r', 'é', '\uFEFF') });
    fc.assert(
      fc.property(fc.array(fc.tuple(text, text), { minLength: 1, maxLength: 20 }), (rows) => {
        const read = parseCsv(writeCsv(['value', 'remote_id'], rows));
        expect(read.error).toBeNull();
        expect(read.records.slice(1).map((r) => r.cells)).toEqual(rows);
      }),
    );
  });
});
