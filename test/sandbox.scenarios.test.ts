import { expect, it } from 'vitest';
import { RECORDS } from './support/accounting.js';
import type { Api } from './support/api.js';
import { describeEachDialect } from './support/context.js';
import { allRecords, newAccount, SANDBOX, tally } from './support/sandbox.js';

/** The sandbox's scenarios: the data a new (or reset) sandbox account starts with, the same for the same seed. */
describeEachDialect(
  'sandbox scenarios',
  (t) => {
    it('review-states: every record type in every review state, the same for the same seed', async () => {
      const ctx = t.ctx;
      const a = await newAccount(ctx, { scenario: 'review-states', seed: 7 });
      expect(a.creds.scenario).toEqual({
        name: 'review-states',
        seed: 7,
        fields: ['GL Account', 'Department', 'Location', 'Class'].map((name, i) => ({
          svc_id: expect.any(String),
          name,
          remote_id: ['GL_ACCOUNT', 'DEPARTMENT', 'LOCATION', 'CLASS'][i],
          values: 10,
        })),
        records: 76,
      });
      const records = await allRecords(a.api);
      expect(records).toHaveLength(76);
      const pairs = new Set(records.map((r) => `${r.type} ${r.review_status}`));
      expect(pairs.size).toBe(76);
      const fields = (await a.api.get('/v1/fields')).body.items;
      expect(fields.map((f: any) => f.name)).toEqual(['GL Account', 'Department', 'Location', 'Class']);

      const shape = (r: any) =>
        JSON.stringify([r.type, r.review_status, r.amount, r.memo, r.line_items.length, r.last_export_result?.status]);
      const b = await newAccount(ctx, { scenario: 'review-states', seed: 7 });
      const c = await newAccount(ctx, { scenario: 'review-states', seed: 8 });
      const sorted = async (api: Api) => (await allRecords(api)).map(shape).sort();
      expect(await sorted(b.api)).toEqual(records.map(shape).sort());
      expect(await sorted(c.api)).not.toEqual(records.map(shape).sort());
    });

    it('month-of-card-spend: 200 card records of the last 30 days waiting for review or export', async () => {
      const ctx = t.ctx;
      const { creds, api } = await newAccount(ctx, { scenario: 'month-of-card-spend', seed: 1 });
      expect(creds.scenario.records).toBe(200);
      const records = await allRecords(api);
      expect(records).toHaveLength(200);
      expect(Object.keys(tally(records, (r) => r.source_type))).toEqual(['CARD']);
      expect(tally(records, (r) => r.review_status)).toEqual({ PREPARE: 67, REVIEW: 67, READY_FOR_EXPORT: 66 });
      const monthAgo = Date.now() - 31 * 24 * 3600 * 1000;
      for (const r of records) expect(Date.parse(r.posted_at)).toBeGreaterThan(monthAgo);
      expect(new Set(records.map((r) => r.type)).size).toBeGreaterThanOrEqual(5);
      // A person is one email (suggestions and the console know people by it): no two of the cardholders share one.
      const emails = new Map(records.filter((r) => r.user).map((r) => [r.user.id, r.user.email]));
      expect(emails.size).toBeGreaterThan(30);
      expect(new Set(emails.values()).size).toBe(emails.size);
    });

    it('export-failures: 20 records to export and 10 back in review after a failed export', async () => {
      const ctx = t.ctx;
      const { api } = await newAccount(ctx, { scenario: 'export-failures', seed: 3 });
      const records = await allRecords(api);
      expect(tally(records, (r) => r.review_status)).toEqual({ READY_FOR_EXPORT: 20, REVIEW: 10 });
      for (const r of records.filter((r) => r.review_status === 'REVIEW')) {
        expect(r.last_export_result).toMatchObject({ status: 'FAILURE', error_message: 'Invalid GL account' });
      }
      const ready = (await api.get(RECORDS, { review_status: 'READY_FOR_EXPORT' })).body;
      expect(ready.total_count).toBe(20);
    });

    it('bills-due: 27 bills due around now, three for each day from 10 days overdue to 30 days ahead', async () => {
      const ctx = t.ctx;
      const started = Date.now();
      const { creds, api } = await newAccount(ctx, { scenario: 'bills-due', seed: 5 });
      expect(creds.scenario.records).toBe(27);
      const res = await api.get(RECORDS, { source_type: 'BILL', limit: '500' });
      expect(res.status, res.text).toBe(200);
      const bills = res.body.items;
      expect(bills).toHaveLength(27);
      expect(tally(bills, (r) => r.review_status)).toEqual({ PREPARE: 9, REVIEW: 9, READY_FOR_EXPORT: 9 });
      const DAY_MS = 24 * 3600 * 1000;
      const days = bills
        .map((r: any) => Math.round((Date.parse(r.due_at) - started) / DAY_MS))
        .sort((x: number, y: number) => x - y);
      expect(days).toEqual([-10, -3, -1, 0, 1, 3, 7, 14, 30].flatMap((d) => [d, d, d]));
      for (const r of bills) expect(Date.parse(r.posted_at)).toBeLessThan(Date.parse(r.due_at));
    });

    it('chart-of-accounts-10k: one field with 10,000 values', async () => {
      const ctx = t.ctx;
      const { creds, api } = await newAccount(ctx, { scenario: 'chart-of-accounts-10k' });
      expect(creds.scenario.fields).toEqual([
        { svc_id: expect.any(String), name: 'GL Account', remote_id: 'GL_ACCOUNT', values: 10_000 },
      ]);
      const fieldId = creds.scenario.fields[0].svc_id;
      const page = await api.get(`/v1/fields/${fieldId}/values`, { limit: '1000' });
      expect(page.status, page.text).toBe(200);
      expect(page.body.items[0]).toMatchObject({ value: '6000 Travel', remote_id: 'GL_ACCOUNT-1' });
      const last = await api.get(`/v1/fields/${fieldId}/values`, { 'remote_id[]': 'GL_ACCOUNT-10000' });
      expect(last.body.items.map((v: any) => v.value)).toEqual(['105990 Training']);
      expect(creds.scenario.records).toBe(0);
    }, 60_000);
  },
  SANDBOX,
);
