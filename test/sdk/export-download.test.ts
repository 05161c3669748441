import { expect, it } from 'vitest';
import { SvcClient, SvcNotFoundError, type ExportedFile } from '../../client/src/index.js';
import { fileNameOf } from '../../client/src/export-file.js';
import { exportBook, exportChart, exported } from '../support/exports.js';
import { describeLive } from './live-server.js';

describeLive('SDK: file exports with their name', (s) => {
  it('answers the file with the name, media type and count the server gives it; exportFile still answers the text', async () => {
    const creds = await s.live.credentials(['accounting.record.read']);
    const admin = await s.live.ctx.as(
      ['accounting.record.admin', 'accounting.record.write', 'fields.write', 'field_values.write'],
      creds.accountId,
    );
    const chart = await exportChart(admin);
    const { expense, refund, bill } = await exportBook(admin, chart);
    const client = new SvcClient({ baseUrl: s.live.url, clientId: creds.clientId, clientSecret: creds.clientSecret });

    const expected = await exported(admin, { format: 'csv', columns: ['reference', 'date', 'account_code'] });
    const csv: ExportedFile = await client.accountingRecords.exportDownload({
      format: 'csv',
      columns: ['reference', 'date', 'account_code'],
    });
    expect(csv).toEqual({
      text: expected,
      file_name: expect.stringMatching(/^svc-export-\d{4}-\d{2}-\d{2}\.csv$/),
      content_type: 'text/csv; charset=utf-8',
      exported_count: 3,
    });
    for (const id of [expense.id, refund.id, bill.id]) expect(csv.text).toContain(id);

    const journal = await client.accountingRecords.exportDownload({
      format: 'hledger',
      accounting_record_ids: [bill.id],
    });
    expect(journal).toMatchObject({
      file_name: expect.stringMatching(/^svc-export-\d{4}-\d{2}-\d{2}\.journal$/),
      content_type: 'text/plain; charset=utf-8',
      exported_count: 1,
    });
    expect(await client.accountingRecords.exportFile({ format: 'hledger', accounting_record_ids: [bill.id] })).toBe(
      journal.text,
    );

    // A refusal is the SDK's error as before, not a file.
    const refused = await client.accountingRecords
      .exportDownload({ format: 'csv', columns: ['reference'], accounting_record_ids: ['accr_missing'] })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(SvcNotFoundError);
    expect(refused).toMatchObject({
      status: 404,
      error_code: 'NOT_FOUND',
      details: { not_found_accounting_record_ids: ['accr_missing'] },
    });
  });
});

it('reads the file name of a Content-Disposition, never a path', () => {
  expect(fileNameOf('attachment; filename="svc-export-2026-11-26.csv"')).toBe('svc-export-2026-11-26.csv');
  expect(fileNameOf('attachment; filename=books.journal')).toBe('books.journal');
  expect(fileNameOf(`attachment; filename="x.csv"; filename*=UTF-8''caf%C3%A9.csv`)).toBe('café.csv');
  expect(fileNameOf('attachment; filename="../../etc/passwd"')).toBe('passwd');
  expect(fileNameOf('attachment; filename="a\\\\b.csv"')).toBe('b.csv');
  expect(fileNameOf('attachment; filename=".."')).toBe('svc-export');
  expect(fileNameOf('attachment')).toBe('svc-export');
  expect(fileNameOf(null)).toBe('svc-export');
});
