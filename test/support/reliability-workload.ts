import { randomUUID } from 'node:crypto';
import type { Db } from '../../src/db/database.js';
import type { HttpApi } from './reliability.js';

export type OpKind = 'create' | 'update' | 'delete' | 'ingest' | 'export' | 'reopen' | 'code' | 'approve';

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

/** What the model knows of a record: its review state and version, its export reference and its coding. */
interface ModelRecord {
  id: string;
  status: 'READY_FOR_EXPORT' | 'EXPORTED' | 'REVIEW';
  version: number;
  reference: string | null;
  /** The economic line, and the remote_id of the value it is coded with (null: uncoded). */
  line: string;
  coded: string | null;
}

/**
 * One client's stream of batch writes over entities that only it touches, so that its model of the stored
 * state is exact: values by remote_id → text, records by source_id → state, version, export reference and
 * coding. Records go round the review cycle: ingested READY_FOR_EXPORT, exported, re-opened to REVIEW (a bulk
 * move), coded, approved (a bulk move) and exported again. Every op is tagged uniquely (texts, source ids,
 * references, the versions it produces), so whether it is in the database can be read back.
 */
export class Workload {
  readonly values = new Map<string, string>();
  readonly records = new Map<string, ModelRecord>();
  private n = 0;

  constructor(
    readonly api: HttpApi,
    readonly fieldId: string,
    /** The field's remote_id: lines are coded by the field's and the value's remote ids. */
    readonly fieldRemoteId: string,
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
    const inState = (status: ModelRecord['status']) =>
      [...this.records].filter(([, r]) => r.status === status).map(([s]) => s);
    const ready = inState('READY_FOR_EXPORT');
    const roll = this.random();
    const moves = '/internal/v1/accounting/records/review-status';
    const bulk = (kind: OpKind, to: string, targets: string[]): Op => ({
      kind,
      method: 'POST',
      path: moves,
      key,
      targets,
      text: tag,
      body: {
        review_status: to,
        records: targets.map((s) => ({ id: this.records.get(s)!.id, version: this.records.get(s)!.version })),
      },
    });
    if (roll < 0.06 && inState('EXPORTED').length > 0)
      return bulk('reopen', 'REVIEW', this.pick(inState('EXPORTED'), 10));
    if (roll < 0.16 && inState('REVIEW').length > 0) {
      const target = this.pick(inState('REVIEW'), 1)[0]!;
      const record = this.records.get(target)!;
      const remote = this.pick([...this.values.keys(), ''], 1)[0]!;
      return {
        kind: 'code',
        method: 'POST',
        path: `/internal/v1/accounting/records/${record.id}/coding`,
        key,
        targets: [target],
        text: remote,
        body: {
          version: record.version,
          lines: [
            {
              line_id: record.line,
              field_values: remote === '' ? [] : [{ field_remote_id: this.fieldRemoteId, remote_id: remote }],
            },
          ],
        },
      };
    }
    if (roll < 0.22 && inState('REVIEW').length > 0)
      return bulk('approve', 'READY_FOR_EXPORT', this.pick(inState('REVIEW'), 10));
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
      else if (op.kind === 'ingest') {
        const line = body.items[i].line_items[0].id;
        this.records.set(target, {
          id: body.items[i].id,
          status: 'READY_FOR_EXPORT',
          version: 1,
          reference: null,
          line,
          coded: null,
        });
      } else {
        const record = this.records.get(target)!;
        record.version++;
        if (op.kind === 'export') Object.assign(record, { status: 'EXPORTED', reference: op.text });
        else if (op.kind === 'reopen') record.status = 'REVIEW';
        else if (op.kind === 'approve') record.status = 'READY_FOR_EXPORT';
        else Object.assign(record, { coded: op.text === '' ? null : op.text });
      }
    }
  }

  /** How many of the op's items the database shows applied (all-or-nothing: 0 or op.targets.length). */
  async applied(db: Db, op: Op): Promise<number> {
    const k = db.direct;
    const account = this.api.accountId;
    if (op.kind === 'reopen' || op.kind === 'approve' || op.kind === 'code') {
      // The op's records at the version it would produce (each op bumps each of its records by one).
      const wanted = new Map(op.targets.map((s) => [this.records.get(s)!.id, this.records.get(s)!.version + 1]));
      const rows = await k
        .selectFrom('accounting_records')
        .select(['id', 'version'])
        .where('account_id', '=', account)
        .where('id', 'in', [...wanted.keys()])
        .execute();
      return rows.filter((r) => Number(r.version) === wanted.get(r.id)).length;
    }
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
      .selectFrom('accounting_records as r')
      .innerJoin('accounting_record_details as d', (j) =>
        j.onRef('d.account_id', '=', 'r.account_id').onRef('d.id', '=', 'r.id'),
      )
      .select(['r.id', 'r.source_id', 'r.review_status', 'r.version', 'r.last_export_json', 'd.line_items_json'])
      .where('r.account_id', '=', this.api.accountId)
      .execute();
    const codedWith = (json: string) => {
      const codings = JSON.parse(json)[0].accounting_field_values as { remote_field_value_id: string }[];
      return codings.length === 0 ? null : codings[0]!.remote_field_value_id;
    };
    return {
      values: Object.fromEntries(values.map((v) => [v.remote_id, v.value])),
      records: Object.fromEntries(
        records.map((r) => [
          r.source_id,
          {
            id: r.id,
            status: r.review_status,
            version: Number(r.version),
            reference: r.last_export_json ? JSON.parse(r.last_export_json).reference_id : null,
            coded: codedWith(r.line_items_json),
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
          { id: r.id, status: r.status, version: r.version, reference: r.reference, coded: r.coded },
        ]),
      ),
    };
  }
}
