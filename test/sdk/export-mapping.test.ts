import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';
import { SvcApiError, SvcClient, type ExportMapping, type ExportMappingRequest } from '../../client/src/index.js';
import { exportBook, exportChart } from '../support/exports.js';
import { tempDir } from '../support/processes.js';
import { describeLive } from './live-server.js';

const run = promisify(execFile);
const BIN = new URL('../../bin/svc.js', import.meta.url).pathname;

describeLive('SDK and svc export: the stored export mapping', (s) => {
  it('reads and sets the mapping, typed; `svc export` books with it unless a flag says otherwise', async () => {
    const admin = await s.live.ctx.as([
      'accounting.record.admin',
      'accounting.record.write',
      'fields.write',
      'field_values.write',
    ]);
    const chart = await exportChart(admin);
    const { expense } = await exportBook(admin, chart);
    const creds = await s.live.credentials(['accounting.record.admin', 'accounting.record.write'], admin.accountId);
    const client = new SvcClient({
      baseUrl: s.live.url,
      clientId: creds.clientId,
      clientSecret: creds.clientSecret,
      maxRetries: 0,
    });

    const before: ExportMapping = await client.accountingRecords.exportMapping();
    expect([before.balancing_accounts.CARD_LIABILITY, before.updated_at]).toEqual(['Liabilities:Card', null]);
    const body: ExportMappingRequest = {
      balancing_accounts: { CARD_LIABILITY: 'Liabilities:800-Card' },
      tracking_fields: [chart.dept.field.svc_id],
    };
    // One Idempotency-Key, one change: the retry answers the same mapping.
    const set = await client.accountingRecords.setExportMapping(body, { idempotencyKey: 'mapping-1' });
    expect(await client.accountingRecords.setExportMapping(body, { idempotencyKey: 'mapping-1' })).toEqual(set);
    expect(set.balancing_accounts.CARD_LIABILITY).toBe('Liabilities:800-Card');
    expect(set.tracking_fields).toEqual([chart.dept.field.svc_id]);
    expect(await client.accountingRecords.exportMapping()).toEqual(set);
    const refused = await client.accountingRecords
      .setExportMapping({ account_field_id: 'fld_nope' })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(SvcApiError);
    expect(refused).toMatchObject({ status: 404, error_code: 'NOT_FOUND' });

    const env = {
      ...process.env,
      SVC_URL: s.live.url,
      SVC_CLIENT_ID: creds.clientId,
      SVC_CLIENT_SECRET: creds.clientSecret,
    };
    const dir = tempDir('svc-export-mapping-');
    // Xero needs a code on every line: the stored card account has one, so no flag is needed.
    const xero = `${dir}/journals.csv`;
    const done = await run(
      process.execPath,
      [BIN, 'export', '--format', 'xero', '--out', xero, '--record', expense.id],
      { env },
    );
    expect(JSON.parse(done.stdout.trim().split('\n').at(-1)!)).toMatchObject({ exported: 1, failed: 0 });
    expect(fs.readFileSync(xero, 'utf8').split('\r\n')[3]).toBe(
      `${expense.id} Vendor H,11/06/2026,"Team ""dinner""",800,Tax Exempt,-171.75,,,,`,
    );
    // A flag overrides the stored account for this run only (the refund, still ready, books the card account).
    const journal = `${dir}/books.journal`;
    await run(
      process.execPath,
      [BIN, 'export', '--format', 'hledger', '--out', journal, '--balancing', 'CARD_LIABILITY=Liabilities:Amex'],
      { env },
    );
    expect(fs.readFileSync(journal, 'utf8')).toContain('\n    Liabilities:Amex  1200 JPY');
    expect((await client.accountingRecords.exportMapping()).balancing_accounts.CARD_LIABILITY).toBe(
      'Liabilities:800-Card',
    );
  });
});
