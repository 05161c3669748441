import type { Kysely } from 'kysely';
import { allOrNothing, forwardOnly, keyText, type MigrationPlan } from './helpers.js';

/**
 * accounting_record_receipts: which receipts each record lists (those svc stores and those ingested with their own
 * links alike), one row per account, record and receipt id, kept with the record's receipts_json. Its primary key
 * answers "has this record a receipt" (the queue's `receipt=missing|present`), its second index "which record
 * lists this receipt" (attaching a receipt, naming one at ingestion): both read JSON before. The records written
 * before this migration get theirs here, from their stored receipts.
 */
export const up = allOrNothing(migrate);

const CHUNK = 500;

// Frozen: the stored list as accounting's storedForm.receipts wrote it, an array of objects with an `id`.
function receiptIdsOf(json: string | null): string[] {
  if (json === null) return [];
  const list: unknown = JSON.parse(json);
  if (!Array.isArray(list)) return [];
  const ids = new Set<string>();
  for (const r of list) if (r && typeof r === 'object' && typeof r.id === 'string') ids.add(r.id);
  return [...ids];
}

async function migrate(db: Kysely<any>): Promise<void> {
  const key = keyText(db);
  await db.schema
    .createTable('accounting_record_receipts')
    .addColumn('account_id', key, (c) => c.notNull())
    .addColumn('record_id', key, (c) => c.notNull())
    .addColumn('receipt_id', key, (c) => c.notNull())
    .addPrimaryKeyConstraint('accounting_record_receipts_pk', ['account_id', 'record_id', 'receipt_id'])
    .execute();
  await db.schema
    .createIndex('accounting_record_receipts_receipt_idx')
    .on('accounting_record_receipts')
    .columns(['account_id', 'receipt_id', 'record_id'])
    .execute();
  let after: { account_id: string; id: string } | null = null;
  for (;;) {
    let q = db
      .selectFrom('accounting_record_details')
      .select(['account_id', 'id', 'receipts_json'])
      .orderBy('account_id')
      .orderBy('id')
      .limit(CHUNK);
    if (after) {
      const { account_id, id } = after;
      q = q.where((eb) =>
        eb.or([eb('account_id', '>', account_id), eb.and([eb('account_id', '=', account_id), eb('id', '>', id)])]),
      );
    }
    const rows = await q.execute();
    if (rows.length === 0) break;
    const links = rows.flatMap((r) =>
      receiptIdsOf(r.receipts_json).map((receipt_id) => ({ account_id: r.account_id, record_id: r.id, receipt_id })),
    );
    for (let i = 0; i < links.length; i += CHUNK) {
      await db
        .insertInto('accounting_record_receipts')
        .values(links.slice(i, i + CHUNK))
        .execute();
    }
    after = rows.at(-1)!;
  }
}

export const down = forwardOnly;

export const plan: MigrationPlan = {
  online: { sqlite: false, postgres: false },
  scans: ['accounting_record_details'],
  note: "Creates the index of which receipts each record lists and fills it from every record's stored receipts: receipts the release before it attaches or removes meanwhile would be missed by the queue's receipt filter and by the check that a receipt belongs to one record.",
};
