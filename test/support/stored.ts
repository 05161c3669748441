import type { Db } from '../../src/db/database.js';

/**
 * What is stored, read directly from the database rather than through the API. Each reader takes anything that
 * holds the database (a test context, a ServedDatabase) and answers rows in creation order where there is one.
 */
type Holder = { readonly db: Db };

/** The fields of an account. */
export function storedFields({ db }: Holder, accountId: string) {
  return db.direct.selectFrom('fields').selectAll().where('account_id', '=', accountId).orderBy('svc_id').execute();
}

/** The values of one field of an account, or of all its fields. */
export function storedValues({ db }: Holder, accountId: string, fieldId?: string) {
  let query = db.direct.selectFrom('field_values').selectAll().where('account_id', '=', accountId);
  if (fieldId !== undefined) query = query.where('field_id', '=', fieldId);
  return query.orderBy('svc_id').execute();
}

/** The rows of accounting_records of an account alone (without their details), in (updated_at, id) order. */
export function storedRecordRows({ db }: Holder, accountId: string) {
  return db.direct
    .selectFrom('accounting_records')
    .selectAll()
    .where('account_id', '=', accountId)
    .orderBy('updated_at')
    .orderBy('id')
    .execute();
}

/** Every stored record of the account (row and details), read directly, in (updated_at, id) order. */
function recordsQuery({ db }: Holder, accountId: string) {
  return db.direct
    .selectFrom('accounting_records as r')
    .innerJoin('accounting_record_details as d', (j) =>
      j.onRef('d.account_id', '=', 'r.account_id').onRef('d.id', '=', 'r.id'),
    )
    .selectAll('r')
    .select(['d.line_items_json', 'd.user_json', 'd.vendor_json', 'd.receipts_json'])
    .where('r.account_id', '=', accountId)
    .orderBy('r.updated_at')
    .orderBy('r.id');
}

/** The stored row of a record with its details. */
export function storedRecord(holder: Holder, accountId: string, id: string) {
  return recordsQuery(holder, accountId).where('r.id', '=', id).executeTakeFirst();
}

/** Every record of the account with its details, in (updated_at, id) order. */
export function storedRecords(holder: Holder, accountId: string) {
  return recordsQuery(holder, accountId).execute();
}

/** The Idempotency-Keys a client has stored, sorted. */
export async function storedKeys({ db }: Holder, clientId: string): Promise<string[]> {
  const rows = await db.direct
    .selectFrom('idempotency_keys')
    .select('idempotency_key')
    .where('client_id', '=', clientId)
    .orderBy('idempotency_key')
    .execute();
  return rows.map((r) => r.idempotency_key);
}

/** The access tokens issued to a client, in the order they were issued. */
export function storedTokens({ db }: Holder, clientId: string) {
  return db.direct
    .selectFrom('access_tokens')
    .selectAll()
    .where('client_id', '=', clientId)
    .orderBy('created_at')
    .execute();
}
