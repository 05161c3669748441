import fs from 'node:fs';
import { expect, it } from 'vitest';
import { readCsv } from '../../client/src/integration/csv.js';
import { RECORDS } from '../support/accounting.js';
import { exportChart, svcExport } from '../support/exports.js';
import { tempDir } from '../support/processes.js';
import { describeLive } from './live-server.js';

/** Memos a CSV must quote: line feeds, CRLF, quotes, commas, and a word that could pass for an id. */
const MEMOS = ['line one\nline', 'crlf\r\nline', 'say "hi", then\n"bye"', 'accr_fake, or not\r\n'];

const ID_COLUMN = { csv: 'reference', quickbooks: 'Memo', netsuite: 'External ID', xero: 'Narration' } as const;
const MEMO_COLUMN = { csv: 'memo', quickbooks: 'Description', netsuite: 'Line Memo', xero: 'Description' } as const;

describeLive('svc export to CSV files whose memos break lines', (s) => {
  for (const format of ['csv', 'quickbooks', 'netsuite', 'xero'] as const) {
    it(`${format}: reports the real record ids, appends each record once, each reference the line its rows start on`, async () => {
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
      const record = (memo: string, day: string) =>
        admin.readyRecord({
          memo,
          erp_posting_date: `2026-06-${day}T12:00:00Z`,
          lines: [{ amount: { amount: 171.75, currency: 'USD' }, memo, field_values: [chart.meals] }],
        });
      const balancing = format === 'xero' ? ['--balancing', 'CARD_LIABILITY=Liabilities:800-Card'] : [];
      const file = `${tempDir('svc-export-')}/books.csv`;
      const first = [await record(MEMOS[0]!, '11'), await record(MEMOS[1]!, '12')];
      const once = await svcExport(['--format', format, '--out', file, ...balancing], env);
      expect(once.code, JSON.stringify(once.lines)).toBe(0);
      expect(once.lines.slice(0, -1).map((l) => [l.accounting_record_id, l.result])).toEqual(
        first.map((r) => [r.id, 'SUCCESS']),
      );

      // The first two again READY (as after a run that wrote the file and died before reporting), two more new.
      for (const r of first) await admin.moveTo(r.id, ['REVIEW', 'READY_FOR_EXPORT']);
      const all = [...first, await record(MEMOS[2]!, '13'), await record(MEMOS[3]!, '14')];
      const again = await svcExport(['--format', format, '--out', file, ...balancing], env);
      expect(again.code, JSON.stringify(again.lines)).toBe(0);
      const rows = readCsv(fs.readFileSync(file, 'utf8'));
      const idColumn = rows[0]!.fields.indexOf(ID_COLUMN[format]);
      const idOf = (row: { fields: string[] }) => row.fields[idColumn]!.split(' ')[0];
      // Each record's rows once (two postings each), in order: no duplicate, no made-up id.
      expect(rows.slice(1).map(idOf)).toEqual(all.flatMap((r) => [r.id, r.id]));
      const lineOf = (id: string) => `books.csv:${rows.find((row) => idOf(row) === id)!.line}`;
      expect(again.lines).toEqual([
        ...all.map((r) => ({
          accounting_record_id: r.id,
          result: 'SUCCESS',
          reference_id: lineOf(r.id),
          reported: true,
        })),
        { file, exported: 4, failed: 0, not_exported: 0, unreported: 0 },
      ]);
      // Each reference is the line (by line feeds, as an editor numbers it) that opens the record's first row.
      const text = fs.readFileSync(file, 'utf8').split('\n');
      for (const r of all) {
        expect(text[Number(lineOf(r.id).split(':')[1]) - 1]).toMatch(new RegExp(`^"?(${r.id}|${r.id.slice(-21)})[ ,]`));
      }
      // The memos come back as written, line ends included.
      const memo = rows[0]!.fields.indexOf(MEMO_COLUMN[format]);
      expect(
        rows
          .slice(1)
          .filter((_, i) => i % 2 === 0)
          .map((r) => r.fields[memo]),
      ).toEqual(MEMOS);
      for (const r of all) expect((await admin.get(`${RECORDS}/${r.id}`)).body.review_status).toBe('EXPORTED');
    });
  }
});
