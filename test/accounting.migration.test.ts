import { sql, type Kysely } from 'kysely';
import { expect, it } from 'vitest';
import { migrateToLatest } from '../src/db/migrate.js';
import { RECORD_TYPES } from '../src/modules/accounting/ledger.js';
import { ADMIN, PEOPLE, RECORDS } from './support/accounting.js';
import { describeEachDialect, type TestContext } from './support/context.js';
import { storedRecords } from './support/stored.js';

const DETAILS = ['line_items_json', 'user_json', 'vendor_json', 'receipts_json'] as const;
const RECORD_FIELDS = '0008_record_fields';
const INTEGRATIONS = '0009_integrations';
const WEBHOOKS = '0010_webhooks';
const OAUTH_APPS = '0011_oauth_apps';
const SECRET_ROTATION = '0012_client_secret_rotation';
const SIGN_IN_SECURITY = '0013_sign_in_security';
const AUDIT_LOG = '0015_audit_log';
const CANONICAL_JSON = '0016_canonical_record_json';
const DELIVERY_QUEUES = '0014_webhook_delivery_queues';
const PASSKEYS = '0017_passkeys';
const AUTOVACUUM = '0018_autovacuum_settings';
const LATER = [
  '0004_line_items_as_answered',
  '0005_record_details',
  '0006_review_workflow',
  '0007_console_users',
  RECORD_FIELDS,
  INTEGRATIONS,
  WEBHOOKS,
  OAUTH_APPS,
  SECRET_ROTATION,
  SIGN_IN_SECURITY,
  DELIVERY_QUEUES,
  AUDIT_LOG,
  CANONICAL_JSON,
  PASSKEYS,
  AUTOVACUUM,
];
const REVIEW_COLUMNS = ['amount_sort', 'uncoded_lines', 'vendor_name', 'user_email'];
const RECORD_FIELD_COLUMNS = ['status', 'billing_currency', 'billing_amount_minor'];

/** Stored line items as written before 0008: no billing_amount, no amortization, codings without a type. */
function linesBefore0008(json: string): string {
  return JSON.stringify(
    (JSON.parse(json) as any[]).map(({ billing_amount: _billing, amortization: _amortization, ...line }) => ({
      ...line,
      accounting_field_values: line.accounting_field_values.map(({ type: _type, ...coding }: any) => coding),
    })),
  );
}
/** A stored user as written before 0008: without the account_id. */
function userBefore0008(json: string | null): string | null {
  if (json === null) return null;
  const { account_id: _account, ...user } = JSON.parse(json);
  return JSON.stringify(user);
}

/** Undoes migration 0008 (the reference record's fields): its columns, and the members it added to stored JSON. */
async function undoRecordFields(db: Kysely<any>) {
  const rows = await db
    .selectFrom('accounting_record_details')
    .select(['account_id', 'id', 'line_items_json', 'user_json'])
    .execute();
  for (const row of rows) {
    await db
      .updateTable('accounting_record_details')
      .set({ line_items_json: linesBefore0008(row.line_items_json), user_json: userBefore0008(row.user_json) })
      .where('account_id', '=', row.account_id)
      .where('id', '=', row.id)
      .execute();
  }
  for (const column of RECORD_FIELD_COLUMNS) {
    await db.schema.alterTable('accounting_record_details').dropColumn(column).execute();
  }
  await sql`delete from kysely_migration where name = ${RECORD_FIELDS}`.execute(db);
}

/** Undoes migration 0009 (vendors and integrations). */
async function undoIntegrations(db: Kysely<any>) {
  for (const table of ['integrations', 'vendors']) await sql`drop table ${sql.ref(table)}`.execute(db);
  await sql`delete from kysely_migration where name = ${INTEGRATIONS}`.execute(db);
}

/** Undoes migration 0018 (PostgreSQL's autovacuum thresholds: storage parameters only, set again when it runs). */
async function undoAutovacuum(db: Kysely<any>) {
  await sql`delete from kysely_migration where name = ${AUTOVACUUM}`.execute(db);
}

/** Undoes migrations 0018 and 0017 (passkeys, and the session's challenge of a passkey ceremony). */
async function undoPasskeys(db: Kysely<any>) {
  await undoAutovacuum(db);
  await sql`drop table user_passkeys`.execute(db);
  for (const column of ['passkey_challenge', 'passkey_ceremony', 'passkey_challenge_expires_at'])
    await db.schema.alterTable('user_sessions').dropColumn(column).execute();
  await sql`delete from kysely_migration where name = ${PASSKEYS}`.execute(db);
}

/** Undoes migrations 0018, 0017, 0016 (stored JSON in the serializer's member order: data only, so only forgotten) and 0015 (the audit log). */
async function undoAuditLog(db: Kysely<any>) {
  await undoPasskeys(db);
  await sql`delete from kysely_migration where name = ${CANONICAL_JSON}`.execute(db);
  await sql`drop table audit_events`.execute(db);
  await sql`delete from kysely_migration where name = ${AUDIT_LOG}`.execute(db);
}

/** Undoes migrations 0018 to 0013 (sign-in throttles, two-step sign-in, the account's user settings). */
async function undoSignInSecurity(db: Kysely<any>) {
  await undoAuditLog(db);
  for (const table of ['account_user_settings', 'user_recovery_codes', 'user_totp', 'sign_in_throttles'])
    await sql`drop table ${sql.ref(table)}`.execute(db);
  await sql`delete from kysely_migration where name = ${SIGN_IN_SECURITY}`.execute(db);
}

/** Undoes migrations 0013 and 0012 (the previous secret of a rotation). */
async function undoSecretRotation(db: Kysely<any>) {
  await undoSignInSecurity(db);
  for (const column of ['previous_secret_hash', 'previous_secret_expires_at'])
    await db.schema.alterTable('oauth_clients').dropColumn(column).execute();
  await sql`delete from kysely_migration where name = ${SECRET_ROTATION}`.execute(db);
}

/** Undoes migration 0011 (partner apps, authorization codes, refresh tokens). */
async function undoOauthApps(db: Kysely<any>) {
  await undoSecretRotation(db);
  for (const table of ['refresh_tokens', 'oauth_codes', 'oauth_apps'])
    await sql`drop table ${sql.ref(table)}`.execute(db);
  await sql`drop index access_tokens_family_idx`.execute(db);
  await db.schema.alterTable('access_tokens').dropColumn('family_id').execute();
  for (const index of ['oauth_clients_app_idx', 'oauth_clients_one_connection_idx'])
    await sql`drop index ${sql.ref(index)}`.execute(db);
  for (const column of ['app_id', 'granted_by'])
    await db.schema.alterTable('oauth_clients').dropColumn(column).execute();
  await sql`delete from kysely_migration where name = ${OAUTH_APPS}`.execute(db);
}

/** Undoes migration 0010 (account events and webhooks), and 0014 (its index goes with the deliveries' table). */
async function undoWebhooks(db: Kysely<any>) {
  await sql`delete from kysely_migration where name = ${DELIVERY_QUEUES}`.execute(db);
  await undoOauthApps(db);
  for (const table of [
    'webhook_attempts',
    'webhook_deliveries',
    'webhook_endpoints',
    'account_events',
    'account_event_counters',
  ]) {
    await sql`drop table ${sql.ref(table)}`.execute(db);
  }
  await sql`delete from kysely_migration where name = ${WEBHOOKS}`.execute(db);
}

/**
 * Undoes migrations 0013, 0012, 0011, 0010, 0009, 0008 and 0007 (console users and sessions; its index on record events goes with 0006's
 * table).
 */
async function backTo0006(db: Kysely<any>) {
  await undoWebhooks(db);
  await undoIntegrations(db);
  await undoRecordFields(db);
  for (const table of ['user_password_links', 'user_sessions', 'users', 'service_secrets']) {
    await sql`drop table ${sql.ref(table)}`.execute(db);
  }
  await sql`delete from kysely_migration where name = '0007_console_users'`.execute(db);
}

/** Undoes migrations 0007 and 0006 (the review workflow), so that a test can run them again over older rows. */
async function backTo0005(db: Kysely<any>, dialect: string) {
  await backTo0006(db);
  if (dialect === 'sqlite') {
    for (const trigger of ['insert', 'update', 'delete']) {
      await sql`drop trigger ${sql.ref(`field_values_search_${trigger}`)}`.execute(db);
    }
    await sql`drop table field_values_search`.execute(db);
  } else {
    await sql`drop index field_values_search_idx`.execute(db);
  }
  await sql`drop index field_values_lower_value_idx`.execute(db);
  await sql`drop table accounting_record_events`.execute(db);
  await sql`drop table account_required_fields`.execute(db);
  await sql`drop index accounting_records_posted_idx`.execute(db);
  await sql`drop index accounting_records_amount_idx`.execute(db);
  for (const column of REVIEW_COLUMNS) await db.schema.alterTable('accounting_records').dropColumn(column).execute();
  await sql`delete from kysely_migration where name = '0006_review_workflow'`.execute(db);
}

/** Records with every kind of detail, their answers, and their stored rows. */
async function recordsOfEveryKind(ctx: TestContext) {
  const api = await ctx.as([...ADMIN]);
  const created = await api.newRecords([
    PEOPLE,
    {
      amount: { amount: 1234, currency: 'JPY' },
      original_amount: { amount: 10.5, currency: 'USD' },
      receipts: [],
    },
    {
      type: 'BILL_EXPENSE',
      amount: { amount: 0.125, currency: 'BHD' },
      vendor: { id: 'v_2', name: 'Vendor B', website: null },
    },
  ]);
  const page = await api.get(RECORDS, { limit: '10' });
  expect(page.body.items).toEqual(created);
  const singles = await Promise.all(
    created.map(async (r) => (await api.get(`${RECORDS}/${r.id}`, { single_entry: 'true' })).text),
  );
  const stored = await storedRecords(ctx, api.accountId);
  expect(stored.map((r) => [r.user_json !== null, r.vendor_json !== null, r.receipts_json])).toEqual([
    [true, true, JSON.stringify(PEOPLE.receipts)],
    [false, false, '[]'],
    [false, true, null],
  ]);
  return { api, created, page: page.text, singles, stored };
}

/**
 * Puts the database back as 0003 left it: the details in accounting_records, line items in integer minor units
 * without currency, except the last record's (already answered, as a run of 0004 cut short leaves it).
 */
async function backTo0003(
  db: Kysely<any>,
  dialect: string,
  stored: Awaited<ReturnType<typeof recordsOfEveryKind>>['stored'],
) {
  await backTo0005(db, dialect);
  for (const column of DETAILS) {
    await sql`alter table accounting_records add column ${sql.ref(column)} text ${column === 'line_items_json' ? sql`not null default '[]'` : sql``}`.execute(
      db,
    );
  }
  // Every record's details back in its row (other tests' accounts too: they share this database)...
  const detail = (column: string) =>
    sql`(select d.${sql.ref(column)} from accounting_record_details d where d.account_id = accounting_records.account_id and d.id = accounting_records.id)`;
  await sql`update accounting_records set ${sql.join(DETAILS.map((c) => sql`${sql.ref(c)} = ${detail(c)}`))}`.execute(
    db,
  );
  // ...and these records' line items in the old form.
  const exponent: Record<string, number> = { USD: 2, JPY: 0, BHD: 3 };
  for (const [i, row] of stored.entries()) {
    const old = (JSON.parse(linesBefore0008(row.line_items_json)) as any[]).map((l) => ({
      ...l,
      amount: Math.round(l.amount.amount * 10 ** exponent[l.amount.currency]!),
      original_amount:
        l.original_amount === null
          ? null
          : Math.round(l.original_amount.amount * 10 ** exponent[l.original_amount.currency]!),
    }));
    await db
      .updateTable('accounting_records')
      .set({ line_items_json: i < 2 ? JSON.stringify(old) : linesBefore0008(row.line_items_json) })
      .where('account_id', '=', row.account_id)
      .where('id', '=', row.id)
      .execute();
  }
  await sql`drop table accounting_record_details`.execute(db);
  await sql`delete from kysely_migration where name in (${sql.join(LATER)})`.execute(db);
}

const columnsOf = async (db: Kysely<any>, table: string) =>
  ((await db.introspection.getTables()).find((t) => t.name === table)?.columns ?? []).map((c) => c.name).sort();

describeEachDialect(
  'accounting: migrations 0004 (line items as answered) and 0005 (details in their own table)',
  (t) => {
    it('brings a database as 0003 left it to the latest layout; no answer and no stored detail changes', async () => {
      const { api, created, page, singles, stored } = await recordsOfEveryKind(t.ctx);
      const db = t.ctx.db.direct as Kysely<any>;
      const latestColumns = await columnsOf(db, 'accounting_records');
      await backTo0003(db, t.dialect, stored);
      for (const column of REVIEW_COLUMNS) expect(await columnsOf(db, 'accounting_records')).not.toContain(column);
      const oldRows = await db
        .selectFrom('accounting_records')
        .select(['id', 'line_items_json'])
        .orderBy('updated_at')
        .execute();
      expect(JSON.parse(oldRows[0]!.line_items_json)[0].amount).toEqual(expect.any(Number));

      expect(await migrateToLatest(t.ctx.db)).toEqual(LATER);

      expect((await api.get(RECORDS, { limit: '10' })).text).toBe(page);
      for (const [i, r] of created.entries()) {
        expect((await api.get(`${RECORDS}/${r.id}`, { single_entry: 'true' })).text).toBe(singles[i]);
      }
      expect(await storedRecords(t.ctx, api.accountId)).toEqual(stored);
      expect(await columnsOf(db, 'accounting_records')).toEqual(latestColumns);
      for (const column of DETAILS) expect(latestColumns).not.toContain(column);
      if (t.dialect === 'sqlite') {
        // Rebuilt with its indexes and keys.
        const indexes = await sql<{
          name: string;
        }>`select name from sqlite_master where type = 'index' and tbl_name = 'accounting_records' order by name`.execute(
          db,
        );
        expect(indexes.rows.map((r) => r.name)).toEqual([
          'accounting_records_amount_idx',
          'accounting_records_posted_idx',
          'accounting_records_review_status_idx',
          'accounting_records_source_type_idx',
          'accounting_records_updated_idx',
          expect.stringMatching(/^sqlite_autoindex_accounting_records/),
        ]);
        expect((await sql`pragma foreign_key_check`.execute(db)).rows).toEqual([]);
        expect((await sql<{ foreign_keys: number }>`pragma foreign_keys`.execute(db)).rows).toEqual([
          { foreign_keys: 1 },
        ]);
      }
    });

    it('changes nothing when 0005 fails half-way (a view still reads a detail column), and runs once that is gone', async () => {
      const { api, page, stored } = await recordsOfEveryKind(t.ctx);
      const db = t.ctx.db.direct as Kysely<any>;
      await backTo0003(db, t.dialect, stored);
      await sql`create view vendors_0005_test as select id, vendor_json from accounting_records`.execute(db);
      const before = {
        columns: await columnsOf(db, 'accounting_records'),
        rows: await db.selectFrom('accounting_records').selectAll().orderBy('id').execute(),
      };

      await expect(migrateToLatest(t.ctx.db)).rejects.toThrow();

      const applied = await sql<{
        name: string;
      }>`select name from kysely_migration where name in (${sql.join(LATER)}) order by name`.execute(db);
      // 0005 left no trace; on PostgreSQL one transaction holds the whole run, so 0004 is undone with it.
      const done = t.dialect === 'postgres' ? [] : ['0004_line_items_as_answered'];
      expect(applied.rows.map((r) => r.name)).toEqual(done);
      expect(await columnsOf(db, 'accounting_records')).toEqual(before.columns);
      expect(await columnsOf(db, 'accounting_record_details')).toEqual([]);
      const rows = await db.selectFrom('accounting_records').selectAll().orderBy('id').execute();
      expect(rows.map((r) => ({ ...r, line_items_json: null }))).toEqual(
        before.rows.map((r) => ({ ...r, line_items_json: null })),
      );
      if (t.dialect === 'sqlite')
        expect((await sql<{ foreign_keys: number }>`pragma foreign_keys`.execute(db)).rows).toEqual([
          { foreign_keys: 1 },
        ]);

      await sql`drop view vendors_0005_test`.execute(db);
      expect(await migrateToLatest(t.ctx.db)).toEqual(LATER.filter((name) => !done.includes(name)));
      expect((await api.get(RECORDS, { limit: '10' })).text).toBe(page);
      expect(await storedRecords(t.ctx, api.accountId)).toEqual(stored);
    });
  },
);

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

    expect(await migrateToLatest(t.ctx.db)).toEqual([
      RECORD_FIELDS,
      INTEGRATIONS,
      WEBHOOKS,
      OAUTH_APPS,
      SECRET_ROTATION,
      SIGN_IN_SECURITY,
      DELIVERY_QUEUES,
      AUDIT_LOG,
      CANONICAL_JSON,
      PASSKEYS,
      AUTOVACUUM,
    ]);
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
    expect(await migrateToLatest(t.ctx.db)).toEqual([
      INTEGRATIONS,
      WEBHOOKS,
      OAUTH_APPS,
      SECRET_ROTATION,
      SIGN_IN_SECURITY,
      DELIVERY_QUEUES,
      AUDIT_LOG,
      CANONICAL_JSON,
      PASSKEYS,
      AUTOVACUUM,
    ]);

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
    expect(await migrateToLatest(t.ctx.db)).toEqual([
      WEBHOOKS,
      OAUTH_APPS,
      SECRET_ROTATION,
      SIGN_IN_SECURITY,
      DELIVERY_QUEUES,
      AUDIT_LOG,
      CANONICAL_JSON,
      PASSKEYS,
      AUTOVACUUM,
    ]);
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

describeEachDialect(
  'accounting: record details on PostgreSQL',
  (t) => {
    it('are stored plain, not compressed, up to 8 kB a row (toast_tuple_target)', async () => {
      const api = await t.ctx.as([...ADMIN]);
      // A ~3 kB row, over the 2 kB default at which PostgreSQL compresses.
      const receipts = Array.from({ length: 10 }, (_, i) => ({
        id: `r_${i}`,
        download_uris: [`https://files.example.invalid/${'x'.repeat(250)}/${i}.pdf`],
      }));
      const [created] = await api.newRecords([{ ...PEOPLE, receipts }]);
      const db = t.ctx.db.direct as Kysely<any>;
      const row = await sql<{ size: number; receipts: string | null; lines: string | null }>`
      select pg_column_size(d.*) as size, pg_column_compression(receipts_json) as receipts, pg_column_compression(line_items_json) as lines
      from accounting_record_details d where account_id = ${api.accountId} and id = ${created.id}`.execute(db);
      expect(row.rows).toEqual([{ size: expect.any(Number), receipts: null, lines: null }]);
      expect(row.rows[0]!.size).toBeGreaterThan(2100);
      expect((await api.get(`${RECORDS}/${created.id}`)).body.receipts).toEqual(receipts);
    });
  },
  {},
  { only: 'postgres' },
);

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
    expect(await migrateToLatest(t.ctx.db)).toEqual([CANONICAL_JSON, PASSKEYS, AUTOVACUUM]);
    expect((await api.get(RECORDS, { limit: '10' })).text).toBe(page);
    expect(await api.get(`${RECORDS}/${id}`)).toMatchObject({ status: 200, text: before.text });
  });
});
