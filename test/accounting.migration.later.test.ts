import { sql, type Kysely } from 'kysely';
import { expect, it } from 'vitest';
import { migrateToLatest } from '../src/db/migrate.js';
import { RECORD_TYPES } from '../src/modules/accounting/ledger.js';
import { ADMIN, PEOPLE, RECORDS } from './support/accounting.js';
import { describeEachDialect } from './support/context.js';
import {
  CANONICAL_JSON,
  INTEGRATIONS,
  laterFrom,
  linesBefore0008,
  RECORD_FIELDS,
  undoIntegrations,
  undoPasskeys,
  undoRecordFields,
  undoWebhooks,
  WEBHOOKS,
} from './support/migrations.js';
import { storedRecords } from './support/stored.js';

describeEachDialect("accounting: migration 0008 (the reference record's fields)", (t) => {
  it("gives records written before it their type's status and the new members; no answer changes", async () => {
    const api = await t.ctx.as([...ADMIN]);
    const gl = await api.newCoding('GL Account', [{ value: '6000 Travel', remote_id: 'GL-6000' }], 'GL');
    const coded = [{ field_id: gl.field.svc_id, svc_id: gl.values[0].svc_id }];
    const half = { amount: 50, currency: 'USD' };
    await api.newRecords(
      RECORD_TYPES.map((type, i) => ({
        type,
        amount: { amount: 100, currency: 'USD' },
        ...(i % 2 === 0 ? { original_amount: { amount: 91, currency: 'EUR' }, ...PEOPLE } : {}),
        lines: [{ amount: half, field_values: coded }, { amount: half }],
      })),
    );
    const db = t.ctx.db.direct as Kysely<any>;
    const page = (await api.get(RECORDS, { limit: '50' })).text;
    const singles = (await api.get(RECORDS, { limit: '50', single_entry: 'true' })).text;
    const stored = await storedRecords(t.ctx, api.accountId);

    await undoWebhooks(db);
    await undoIntegrations(db);
    await undoRecordFields(db);
    const old = await storedRecords(t.ctx, api.accountId);
    expect(old.map((r) => r.line_items_json)).toEqual(stored.map((r) => linesBefore0008(r.line_items_json)));
    expect(old.some((r) => r.line_items_json.includes('billing_amount'))).toBe(false);
    expect(old.some((r) => r.user_json?.includes('account_id'))).toBe(false);

    expect(await migrateToLatest(t.ctx.db)).toEqual(laterFrom(RECORD_FIELDS));
    expect((await api.get(RECORDS, { limit: '50' })).text).toBe(page);
    expect((await api.get(RECORDS, { limit: '50', single_entry: 'true' })).text).toBe(singles);
    expect(await storedRecords(t.ctx, api.accountId)).toEqual(stored);
  });
});

describeEachDialect('migration 0009 (vendors and integrations)', (t) => {
  it('runs over a database 0008 left, and the database itself keeps one ACTIVE integration per account', async () => {
    const db = t.ctx.db.direct as Kysely<any>;
    const api = await t.ctx.as(['accounting.integration.write']);
    await undoWebhooks(db);
    await undoIntegrations(db);
    expect(await migrateToLatest(t.ctx.db)).toEqual(laterFrom(INTEGRATIONS));

    await db.insertInto('vendors').values({ vendor_id: 'ERP_M', name: 'M', created_at: 1, updated_at: 1 }).execute();
    const row = (integration_id: string, status: string) => ({
      account_id: api.accountId,
      integration_id,
      vendor: 'ERP_M',
      vendor_account_id: 'a',
      status,
      created_at: 1,
      updated_at: 1,
    });
    await db
      .insertInto('integrations')
      .values([row('int_1', 'DISABLED'), row('int_2', 'DISABLED')])
      .execute();
    await db.insertInto('integrations').values(row('int_3', 'ACTIVE')).execute();
    await expect(db.insertInto('integrations').values(row('int_4', 'ACTIVE')).execute()).rejects.toThrow(/unique/i);
    await expect(
      db.updateTable('integrations').set({ status: 'ACTIVE' }).where('integration_id', '=', 'int_1').execute(),
    ).rejects.toThrow(/unique/i);
    await expect(db.insertInto('integrations').values(row('int_5', 'PAUSED')).execute()).rejects.toThrow(/check/i);
    await expect(
      db
        .insertInto('integrations')
        .values({ ...row('int_6', 'DISABLED'), vendor: 'ERP_NONE' })
        .execute(),
    ).rejects.toThrow(/foreign key/i);
  });
});

describeEachDialect('migration 0010 (account events and webhooks)', (t) => {
  it("runs over a database 0009 left; an endpoint's deliveries and log go with it", async () => {
    const db = t.ctx.db.direct as Kysely<any>;
    const api = await t.ctx.as(['webhooks.write']);
    await undoWebhooks(db);
    expect(await migrateToLatest(t.ctx.db)).toEqual(laterFrom(WEBHOOKS));
    const made = await api.post('/v1/webhooks', {
      url: 'https://erp.example.com/hook',
      event_types: ['field_values.changed'],
    });
    expect(made.status, made.text).toBe(200);
    const row = {
      account_id: api.accountId,
      endpoint_id: made.body.id,
      event_id: 'evt_1',
      created_at: 1,
      updated_at: 1,
    };
    await db
      .insertInto('webhook_deliveries')
      .values({ ...row, delivery_id: 'whd_1', status: 'PENDING', attempts: 0, next_attempt_at: 1, retry_from: 1 })
      .execute();
    await expect(
      db
        .insertInto('webhook_deliveries')
        .values({
          ...row,
          event_id: 'evt_2',
          delivery_id: 'whd_2',
          status: 'LOST',
          attempts: 0,
          next_attempt_at: 1,
          retry_from: 1,
        })
        .execute(),
    ).rejects.toThrow(/check/i);
    expect((await api.delete(`/v1/webhooks/${made.body.id}`)).status).toBe(200);
    expect(await db.selectFrom('webhook_deliveries').selectAll().execute()).toEqual([]);
  });
});

describeEachDialect('migration 0016 (stored JSON in the serializer member order)', (t) => {
  it('rewrites lines, user, vendor and receipts stored in other orders; every value stays, pages match the serializer', async () => {
    const db = t.ctx.db.direct as Kysely<any>;
    const api = await t.ctx.as([...ADMIN, 'accounting.record.read']);
    const made = await api.create('/internal/v1/accounting/records', {
      items: [
        {
          type: 'CARD_EXPENSE_POST',
          amount: { amount: 20, currency: 'EUR' },
          billing_amount: { amount: 25, currency: 'USD' },
          posted_at: '2026-06-11T09:09:05.840865Z',
          user: { ...PEOPLE.user, title_name: 'Accountant' },
          vendor: { id: 'v_9', name: 'Vendor Z', website: 'https://example.invalid/', email: null },
          receipts: PEOPLE.receipts,
        },
      ],
    });
    expect(made.status, made.text).toBe(200);
    const id = made.body.items[0].id;
    const before = await api.get(`${RECORDS}/${id}`);
    const page = (await api.get(RECORDS, { limit: '10' })).text;
    // As earlier releases stored them: a line's billing_amount after original_amount, the sender's orders.
    const row = await db
      .selectFrom('accounting_record_details')
      .select(['line_items_json', 'user_json', 'vendor_json', 'receipts_json'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    const lines = JSON.parse(row.line_items_json).map((l: Record<string, unknown>) => {
      const { id: lineId, type, amount, original_amount, billing_amount, ...rest } = l;
      return { type, id: lineId, amount, original_amount, ...(billing_amount ? { billing_amount } : {}), ...rest };
    });
    const user = JSON.parse(row.user_json);
    const vendor = JSON.parse(row.vendor_json);
    await db
      .updateTable('accounting_record_details')
      .set({
        line_items_json: JSON.stringify(lines),
        user_json: JSON.stringify({ title_name: user.title_name, ...user }),
        vendor_json: JSON.stringify({ website: vendor.website, name: vendor.name, email: vendor.email, id: vendor.id }),
      })
      .where('id', '=', id)
      .execute();
    expect((await api.get(RECORDS, { limit: '10' })).text).not.toBe(page);
    await undoPasskeys(db);
    await sql`delete from kysely_migration where name = ${CANONICAL_JSON}`.execute(db);
    expect(await migrateToLatest(t.ctx.db)).toEqual(laterFrom(CANONICAL_JSON));
    expect((await api.get(RECORDS, { limit: '10' })).text).toBe(page);
    expect(await api.get(`${RECORDS}/${id}`)).toMatchObject({ status: 200, text: before.text });
  });
});
