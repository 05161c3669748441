import { randomUUID } from 'node:crypto';
import type { Db } from '../../src/db/database.js';
import type { HttpApi } from './reliability.js';

export type OpKind = 'create' | 'update' | 'delete' | 'ingest' | 'export';

export interface Op {
  kind: OpKind;
  method: 'POST' | 'PUT' | 'DELETE';
  path: string;
  body: any;
  key: string;
  /** remote_ids (values) or source_ids (records) the op touches, and what it sets. */
  targets: string[];
  text: string;
}

/**
 * One client's stream of batch writes over entities that only it touches, so that its model of the stored
 * state is exact: values by remote_id → text, records by source_id → id and export reference. Every op is
 * tagged uniquely (texts, source ids, references), so whether it is in the database can be read back.
 */
export class Workload {
  readonly values = new Map<string, string>();
  readonly records = new Map<string, { id: string; reference: string | null }>();
  private n = 0;

  constructor(
    readonly api: HttpApi,
    readonly fieldId: string,
    readonly name: string,
    private readonly random: () => number = Math.random,
  ) {}

  private pick<T>(from: T[], max: number): T[] {
    const shuffled = [...from].sort(() => this.random() - 0.5);
    return shuffled.slice(0, 1 + Math.floor(this.random() * Math.min(max, shuffled.length)));
  }

  next(): Op {
    const tag = `${this.name}-${++this.n}`;
    const key = randomUUID();
    const values = `/v1/fields/${this.fieldId}/values`;
    const ready = [...this.records].filter(([, r]) => r.reference === null).map(([s]) => s);
    const roll = this.random();
    if (roll < 0.15 && this.values.size > 0) {
      const targets = this.pick([...this.values.keys()], 10);
      return {
        kind: 'delete',
        method: 'DELETE',
        path: values,
        key,
        targets,
        text: tag,
        body: { items: targets.map((remote_id) => ({ remote_id })) },
      };
    }
    if (roll < 0.35 && this.values.size > 0) {
      const targets = this.pick([...this.values.keys()], 20);
      const body = { items: targets.map((remote_id) => ({ remote_id, data: { value: `${tag}` } })) };
      return { kind: 'update', method: 'PUT', path: values, key, targets, text: tag, body };
    }
    if (roll < 0.5 && ready.length > 0) {
      const targets = this.pick(ready, 5);
      const results = targets.map((s) => ({
        accounting_record_id: this.records.get(s)!.id,
        success: { reference_id: tag },
      }));
      return {
        kind: 'export',
        method: 'POST',
        path: '/v3/accounting/records/export-results',
        key,
        targets,
        text: tag,
        body: { results },
      };
    }
    if (roll < 0.72) {
      const count = 1 + Math.floor(this.random() * 20);
      const targets = Array.from({ length: count }, (_, i) => `${tag}-${i}`);
      const items = targets.map((source_id, i) => ({
        type: i % 2 ? 'BILL_EXPENSE' : 'CARD_EXPENSE_POST',
        amount: { amount: 10 + i + 0.25, currency: 'USD' },
        posted_at: '2026-06-11T09:09:05.840865Z',
        source_id,
        review_status: 'READY_FOR_EXPORT',
      }));
      return {
        kind: 'ingest',
        method: 'POST',
        path: '/internal/v1/accounting/records',
        key,
        targets,
        text: tag,
        body: { items },
      };
    }
    const count = 1 + Math.floor(this.random() * 50);
    const targets = Array.from({ length: count }, (_, i) => `${tag}-${i}`);
    const body = { items: targets.map((remote_id) => ({ remote_id, value: tag })) };
    return { kind: 'create', method: 'POST', path: values, key, targets, text: tag, body };
  }

  /** The op was acknowledged (`body` is its answer): the model follows. */
  apply(op: Op, body: any): void {
    for (const [i, target] of op.targets.entries()) {
      if (op.kind === 'create' || op.kind === 'update') this.values.set(target, op.text);
      else if (op.kind === 'delete') this.values.delete(target);
      else if (op.kind === 'ingest') this.records.set(target, { id: body.items[i].id, reference: null });
      else this.records.get(target)!.reference = op.text;
    }
  }

  /** How many of the op's items the database shows applied (all-or-nothing: 0 or op.targets.length). */
  async applied(db: Db, op: Op): Promise<number> {
    const k = db.direct;
    const account = this.api.accountId;
    if (op.kind === 'ingest' || op.kind === 'export') {
      const rows = await k
        .selectFrom('accounting_records')
        .select(['source_id', 'last_export_json'])
        .where('account_id', '=', account)
        .where('source_id', 'in', op.targets)
        .execute();
      if (op.kind === 'ingest') return rows.length;
      return rows.filter((r) => r.last_export_json !== null && JSON.parse(r.last_export_json).reference_id === op.text)
        .length;
    }
    const rows = await k
      .selectFrom('field_values')
      .select(['remote_id', 'value'])
      .where('account_id', '=', account)
      .where('field_id', '=', this.fieldId)
      .where('remote_id', 'in', op.targets)
      .execute();
    if (op.kind === 'create') return rows.length;
    if (op.kind === 'update') return rows.filter((r) => r.value === op.text).length;
    return op.targets.length - rows.length;
  }

  /** The stored state of this client's entities, in the model's terms. */
  async stored(db: Db) {
    const values = await db.direct
      .selectFrom('field_values')
      .select(['remote_id', 'value'])
      .where('account_id', '=', this.api.accountId)
      .where('field_id', '=', this.fieldId)
      .execute();
    const records = await db.direct
      .selectFrom('accounting_records')
      .select(['id', 'source_id', 'review_status', 'last_export_json'])
      .where('account_id', '=', this.api.accountId)
      .execute();
    return {
      values: Object.fromEntries(values.map((v) => [v.remote_id, v.value])),
      records: Object.fromEntries(
        records.map((r) => [
          r.source_id,
          {
            id: r.id,
            status: r.review_status,
            reference: r.last_export_json ? JSON.parse(r.last_export_json).reference_id : null,
          },
        ]),
      ),
    };
  }

  /** What `stored` must equal. */
  expected() {
    return {
      values: Object.fromEntries(this.values),
      records: Object.fromEntries(
        [...this.records].map(([s, r]) => [
          s,
          { id: r.id, status: r.reference ? 'EXPORTED' : 'READY_FOR_EXPORT', reference: r.reference },
        ]),
      ),
    };
  }
}
