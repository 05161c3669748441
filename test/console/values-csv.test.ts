import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { csvCell, isBlank, parseCsv } from '../../console/src/features/fields/import/csv.js';

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

  it('reads back any table it writes', () => {
    const text = fc.string({ unit: fc.constantFrom('a', 'b', ' ', ',', ';', '"', '\n', '\r', 'é') });
    fc.assert(
      fc.property(fc.array(fc.tuple(text, text), { minLength: 1, maxLength: 20 }), (rows) => {
        const written = ['value,remote_id', ...rows.map((cells) => cells.map(csvCell).join(','))].join('\r\n');
        const read = parseCsv(written);
        expect(read.error).toBeNull();
        expect(read.records.slice(1).map((r) => r.cells)).toEqual(rows);
      }),
    );
  });
});
