import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';
import { RECORDS } from '../support/accounting.js';
import { EXPORTS, exportBook, exportChart, exported, svcExport } from '../support/exports.js';
import { beanCheck, hledgerCheck } from '../support/ledger-tools.js';
import { tempDir } from '../support/processes.js';
import { describeLive } from './live-server.js';

const run = promisify(execFile);
const BIN = new URL('../../bin/svc.js', import.meta.url).pathname;

const count = (text: string, id: string) => text.split(`svc_record:${id}`).length - 1;

describeLive('svc export', (s) => {
  it('writes the journal, reports each record, and a rerun never duplicates (a crash before reporting included)', async () => {
    const creds = await s.live.credentials(['accounting.record.read', 'accounting.record.write']);
    const admin = await s.live.ctx.as(
      ['accounting.record.admin', 'accounting.record.write', 'fields.write', 'field_values.write'],
      creds.accountId,
    );
    const env = {
      ...process.env,
      SVC_URL: s.live.url,
      SVC_CLIENT_ID: creds.clientId,
      SVC_CLIENT_SECRET: creds.clientSecret,
    };
    const chart = await exportChart(admin);
    const { expense, refund, bill } = await exportBook(admin, chart);
    const uncoded = await admin.readyRecord({
      lines: [{ amount: { amount: 171.75, currency: 'USD' }, field_values: [chart.sales] }],
    });
    const expected = await exported(admin, { format: 'hledger', exclude_accounting_record_ids: [uncoded.id] });
    const file = `${tempDir('svc-export-')}/books.journal`;

    const first = await svcExport(['--format', 'hledger', '--out', file], env);
    expect(first.code).toBe(1);
    const journal = fs.readFileSync(file, 'utf8');
    expect(journal).toBe(expected);
    const lineOf = (id: string) =>
      `books.journal:${journal.split('\n').findIndex((l) => l.includes(`svc_record:${id}`)) + 1}`;
    const reason = `line 1 (${uncoded.line_items[0].id}) has no GL account`;
    expect(first.lines).toEqual([
      ...[expense, bill, refund].map((r) => ({
        accounting_record_id: r.id,
        result: 'SUCCESS',
        reference_id: lineOf(r.id),
        reported: true,
      })),
      { accounting_record_id: uncoded.id, result: 'FAILURE', reason, reported: true },
      { file, exported: 3, failed: 1, not_exported: 0, unreported: 0 },
    ]);
    const stored = async (id: string) => (await admin.get(`${RECORDS}/${id}`)).body;
    expect(await stored(expense.id)).toMatchObject({
      review_status: 'EXPORTED',
      last_export_result: { status: 'SUCCESS', reference_id: lineOf(expense.id), error_message: null },
    });
    expect(await stored(uncoded.id)).toMatchObject({
      review_status: 'REVIEW',
      last_export_result: { status: 'FAILURE', reference_id: null, error_message: reason },
    });
    hledgerCheck(file);

    // A run that wrote the file and died before reporting: its entry is in the file, its record still ready.
    const written = await admin.readyRecord({
      amount: { amount: 5, currency: 'KWD' },
      erp_posting_date: '2026-07-01T00:00:00Z',
      lines: [{ amount: { amount: 5, currency: 'KWD' }, field_values: [chart.meals] }],
    });
    const crashed = await admin.post(EXPORTS, { format: 'hledger', accounting_record_ids: [written.id] });
    fs.appendFileSync(file, `\n${crashed.text.split('\n\n').slice(1).join('\n\n')}`);
    const fresh = await admin.readyRecord({
      erp_posting_date: '2026-07-02T00:00:00Z',
      lines: [{ amount: { amount: 171.75, currency: 'USD' }, field_values: [chart.other] }],
    });

    const second = await svcExport(['--format', 'hledger', '--out', file], env);
    expect(second.code).toBe(0);
    const after = fs.readFileSync(file, 'utf8');
    expect(after.slice(0, journal.length)).toBe(journal);
    for (const r of [expense, bill, refund, written, fresh]) expect(count(after, r.id), r.id).toBe(1);
    expect(after.split('\n').filter((l) => l === 'commodity 1000.000 KWD')).toHaveLength(1);
    expect(second.lines.slice(0, -1).map((l) => [l.accounting_record_id, l.result])).toEqual([
      [written.id, 'SUCCESS'],
      [fresh.id, 'SUCCESS'],
    ]);
    expect((await stored(written.id)).review_status).toBe('EXPORTED');
    hledgerCheck(file);

    // Nothing left to export: the file stays as it is.
    const third = await svcExport(['--format', 'hledger', '--out', file], env);
    expect(third).toEqual({ code: 0, lines: [{ file, exported: 0, failed: 0, not_exported: 0, unreported: 0 }] });
    expect(fs.readFileSync(file, 'utf8')).toBe(after);
  });

  it('appends to a Beancount file: new accounts opened once, each record once, bean-check passes', async () => {
    const creds = await s.live.credentials(['accounting.record.read', 'accounting.record.write']);
    const admin = await s.live.ctx.as(
      ['accounting.record.admin', 'accounting.record.write', 'fields.write', 'field_values.write'],
      creds.accountId,
    );
    const env = {
      ...process.env,
      SVC_URL: s.live.url,
      SVC_CLIENT_ID: creds.clientId,
      SVC_CLIENT_SECRET: creds.clientSecret,
    };
    const chart = await exportChart(admin);
    const { expense } = await exportBook(admin, chart);
    const file = `${tempDir('svc-export-')}/books.beancount`;
    expect((await svcExport(['--format', 'beancount', '--out', file], env)).code).toBe(0);
    const payment = await admin.readyRecord({
      type: 'CARD_PAYMENT',
      erp_posting_date: '2026-08-01T00:00:00Z',
      lines: [{ amount: { amount: 171.75, currency: 'USD' }, field_values: [chart.bank] }],
    });
    const second = await svcExport(['--format', 'beancount', '--out', file], env);
    expect(second.code).toBe(0);
    expect(second.lines.slice(0, -1).map((l) => l.accounting_record_id)).toEqual([payment.id]);
    const text = fs.readFileSync(file, 'utf8');
    expect(text.split('\n').filter((l) => l.endsWith(' open Liabilities:Card'))).toHaveLength(1);
    expect(text.split('\n').filter((l) => l.endsWith(' open Assets:1000-Operating-Bank'))).toHaveLength(1);
    for (const id of [expense.id, payment.id]) expect(text.split(`svc_id: "${id}"`)).toHaveLength(2);
    beanCheck(file);
  });

  it('names records it was asked for that are not ready, reports none of them, and refuses bad flags', async () => {
    const creds = await s.live.credentials(['accounting.record.read', 'accounting.record.write']);
    const admin = await s.live.ctx.as(['accounting.record.admin', 'accounting.record.write'], creds.accountId);
    const env = {
      ...process.env,
      SVC_URL: s.live.url,
      SVC_CLIENT_ID: creds.clientId,
      SVC_CLIENT_SECRET: creds.clientSecret,
    };
    const inReview = await admin.newRecord({ review_status: 'REVIEW' });
    const file = `${tempDir('svc-export-')}/books.csv`;
    const res = await svcExport(['--format', 'csv', '--out', file, '--record', inReview.id], env);
    expect(res.code).toBe(1);
    expect(res.lines[0]).toEqual({
      accounting_record_id: inReview.id,
      result: 'NOT_EXPORTED',
      reason: `is REVIEW, not READY_FOR_EXPORT; line 1 (${inReview.line_items[0].id}) has no GL account`,
    });
    expect(fs.readFileSync(file, 'utf8')).toBe(
      'reference,date,payee,narration,account_code,account_name,debit,credit,currency,memo\r\n',
    );
    expect((await admin.get(`${RECORDS}/${inReview.id}`)).body.last_export_result).toBeNull();
    const usage = await run(process.execPath, [BIN, 'export', '--format', 'qif', '--out', file], { env }).catch(
      (e) => e,
    );
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('svc: --format: one of hledger, beancount, csv, quickbooks, xero, netsuite');
  });
});
