import type { Kysely } from 'kysely';
import { allOrNothing, forwardOnly, keyText, type MigrationPlan } from './helpers.js';

/**
 * accounting_record_terms: the words each record is found by in the review queue's free-text search (search-terms.ts
 * in accounting), one row per account, term and record; the primary key is the index a query word's prefix range
 * reads. Written with the record; the records written before this migration get theirs here.
 */
export const up = allOrNothing(migrate);

// Frozen copy of accounting/search-terms.ts termsOf as this migration wrote it.
const WORD = /[\p{L}\p{N}]+/gu;
const fold = (text: string) => text.normalize('NFC').toLowerCase().slice(0, 64);
function termsOf(record: {
  id: string;
  memo: string | null;
  vendor_name: string | null;
  invoice_number: string | null;
}) {
  const terms = new Set<string>([fold(record.id)]);
  for (const whole of [record.invoice_number, record.vendor_name]) if (whole) terms.add(fold(whole.trim()));
  for (const text of [record.memo, record.vendor_name, record.invoice_number]) {
    for (const word of text?.match(WORD) ?? []) terms.add(fold(word));
  }
  terms.delete('');
  return [...terms];
}

const CHUNK = 500;

async function migrate(db: Kysely<any>): Promise<void> {
  const key = keyText(db);
  await db.schema
    .createTable('accounting_record_terms')
    .addColumn('account_id', key, (c) => c.notNull())
    .addColumn('term', key, (c) => c.notNull())
    .addColumn('record_id', key, (c) => c.notNull())
    .addPrimaryKeyConstraint('accounting_record_terms_pk', ['account_id', 'term', 'record_id'])
    .execute();
  let after: { account_id: string; id: string } | null = null;
  for (;;) {
    let q = db
      .selectFrom('accounting_records')
      .select(['account_id', 'id', 'memo', 'vendor_name', 'invoice_number'])
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
    const terms = rows.flatMap((r) => termsOf(r).map((term) => ({ account_id: r.account_id, term, record_id: r.id })));
    for (let i = 0; i < terms.length; i += CHUNK) {
      await db
        .insertInto('accounting_record_terms')
        .values(terms.slice(i, i + CHUNK))
        .execute();
    }
    after = rows.at(-1)!;
  }
}

export const down = forwardOnly;

export const plan: MigrationPlan = {
  online: { sqlite: false, postgres: false },
  scans: ['accounting_records', 'accounting_record_details'],
  note: "Creates the words records are found by and fills them from every record: records the release before it writes meanwhile would be missing from the queue's free-text search.",
};
