import { randomUUID } from 'node:crypto';
import {
  centsOf,
  economicLines,
  usd,
  type ModelLine,
  type ModelRecord,
  type Op,
  type OpKind,
} from './reliability-ops.js';
import type { HttpApi } from './reliability.js';

export type { Op, OpKind } from './reliability-ops.js';

/**
 * One client's stream of batch writes over entities that only it touches, so that its model of the stored
 * state is exact: values by remote_id → text, records by source_id → state, version, last export report and
 * economic lines (ids, amounts, coding). Records go round the review cycle: ingested READY_FOR_EXPORT with one
 * or two lines, reported exported (or failed, back to REVIEW), re-opened to REVIEW (a bulk move), coded, split
 * and merged, approved (a bulk move) and exported again. Every op is tagged uniquely (texts, source ids,
 * references, error messages, the versions it produces), so whether it is in the database can be read back.
 */
export class Workload {
  readonly values = new Map<string, string>();
  readonly records = new Map<string, ModelRecord>();
  private n = 0;
  /**
   * Kinds the test waits to see acknowledged (say, each step of the review cycle before it stops killing): half of
   * the ops are then of the first of them that can run now, the rest follow the shares. Empty: the shares alone.
   */
  wanted: ReadonlySet<OpKind> = new Set();

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

  private inState(status: ModelRecord['status'], where: (r: ModelRecord) => boolean = () => true): string[] {
    return [...this.records].filter(([, r]) => r.status === status && where(r)).map(([s]) => s);
  }

  next(): Op {
    const tag = `${this.name}-${++this.n}`;
    const key = randomUUID();
    const values = `/v1/fields/${this.fieldId}/values`;
    const record = (s: string) => this.records.get(s)!;
    const edit = (kind: OpKind, target: string, path: string, body: object, text = tag): Op => ({
      kind,
      method: 'POST',
      path: `/internal/v1/accounting/records/${record(target).id}/${path}`,
      key,
      targets: [target],
      text,
      body: { version: record(target).version, ...body },
    });
    const bulk = (kind: OpKind, to: string, targets: string[]): Op => ({
      kind,
      method: 'POST',
      path: '/internal/v1/accounting/records/review-status',
      key,
      targets,
      text: tag,
      body: {
        review_status: to,
        records: targets.map((s) => ({ id: record(s).id, version: record(s).version })),
      },
    });
    const report = (kind: OpKind, targets: string[]): Op => ({
      kind,
      method: 'POST',
      path: '/v3/accounting/records/export-results',
      key,
      targets,
      text: tag,
      body: {
        results: targets.map((s) => ({
          accounting_record_id: record(s).id,
          ...(kind === 'export' ? { success: { reference_id: tag } } : { failure: { error_message: tag } }),
        })),
      },
    });
    const inReview = this.inState('REVIEW');
    // A line of at least 2 cents splits into two parts of at least 1; four lines are enough to merge.
    const halvable = (l: ModelLine) => l.cents >= 2;
    const splittable = this.inState('REVIEW', (r) => r.lines.length < 4 && r.lines.some(halvable));
    const mergeable = this.inState('REVIEW', (r) => r.lines.length >= 2);
    const ready = this.inState('READY_FOR_EXPORT');
    const exported = this.inState('EXPORTED');

    // Each kind has its own share of the rolls: the bands follow one another over [0, 1), so a kind never takes
    // another's share. A kind that cannot run now (nothing in the state it needs) leaves its roll to the next
    // band that can; what is left creates values.
    const kinds: { kind: OpKind; share: number; can: boolean; op: () => Op }[] = [
      {
        kind: 'reopen',
        share: 0.05,
        can: exported.length > 0,
        op: () => bulk('reopen', 'REVIEW', this.pick(exported, 10)),
      },
      {
        kind: 'code',
        share: 0.07,
        can: inReview.length > 0,
        op: () => {
          const target = this.pick(inReview, 1)[0]!;
          const line = this.pick(record(target).lines, 1)[0]!;
          const remote = this.pick([...this.values.keys(), ''], 1)[0]!;
          const field_values = remote === '' ? [] : [{ field_remote_id: this.fieldRemoteId, remote_id: remote }];
          return edit('code', target, 'coding', { lines: [{ line_id: line.id, field_values }] }, remote);
        },
      },
      {
        kind: 'split',
        share: 0.05,
        can: splittable.length > 0,
        op: () => {
          const target = this.pick(splittable, 1)[0]!;
          const line = this.pick(record(target).lines.filter(halvable), 1)[0]!;
          const first = Math.floor(line.cents / 2);
          const parts = [{ amount: usd(first) }, { amount: usd(line.cents - first) }];
          return edit('split', target, `lines/${line.id}/split`, { parts }, line.id);
        },
      },
      {
        kind: 'merge',
        share: 0.06,
        can: mergeable.length > 0,
        op: () => {
          const target = this.pick(mergeable, 1)[0]!;
          const lines = [...record(target).lines].sort(() => this.random() - 0.5).slice(0, 2);
          return edit('merge', target, 'lines/merge', { line_ids: lines.map((l) => l.id) });
        },
      },
      {
        kind: 'approve',
        share: 0.06,
        can: inReview.length > 0,
        op: () => bulk('approve', 'READY_FOR_EXPORT', this.pick(inReview, 10)),
      },
      { kind: 'fail', share: 0.03, can: ready.length > 0, op: () => report('fail', this.pick(ready, 3)) },
      {
        kind: 'delete',
        share: 0.07,
        can: this.values.size > 0,
        op: () => {
          const targets = this.pick([...this.values.keys()], 10);
          const body = { items: targets.map((remote_id) => ({ remote_id })) };
          return { kind: 'delete', method: 'DELETE', path: values, key, targets, text: tag, body };
        },
      },
      {
        kind: 'update',
        share: 0.13,
        can: this.values.size > 0,
        op: () => {
          const targets = this.pick([...this.values.keys()], 20);
          const body = { items: targets.map((remote_id) => ({ remote_id, data: { value: tag } })) };
          return { kind: 'update', method: 'PUT', path: values, key, targets, text: tag, body };
        },
      },
      { kind: 'export', share: 0.12, can: ready.length > 0, op: () => report('export', this.pick(ready, 5)) },
      {
        kind: 'ingest',
        share: 0.18,
        can: true,
        op: () => {
          const count = 1 + Math.floor(this.random() * 20);
          const targets = Array.from({ length: count }, (_, i) => `${tag}-${i}`);
          const items = targets.map((source_id, i) => {
            const cents = 1025 + 100 * i;
            return {
              type: i % 2 ? 'BILL_EXPENSE' : 'CARD_EXPENSE_POST',
              amount: usd(cents),
              posted_at: '2026-06-11T09:09:05.840865Z',
              source_id,
              review_status: 'READY_FOR_EXPORT',
              // Every third record comes with two economic lines, so that there are lines to merge at once.
              ...(i % 3 === 0 ? { lines: [{ amount: usd(1000) }, { amount: usd(cents - 1000) }] } : {}),
            };
          });
          const path = '/internal/v1/accounting/records';
          return { kind: 'ingest', method: 'POST', path, key, targets, text: tag, body: { items } };
        },
      },
    ];
    // Half the rolls go to a kind the test still waits for, when one can run now (none is wanted by default).
    if (this.wanted.size > 0 && this.random() < 0.5) {
      const wanted = kinds.find((k) => this.wanted.has(k.kind) && k.can);
      if (wanted) return wanted.op();
    }
    const roll = this.random();
    let band = 0;
    for (const kind of kinds) {
      band += kind.share;
      if (roll < band && kind.can) return kind.op();
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
        const item = op.body.items[i];
        const amounts: number[] = item.lines
          ? item.lines.map((l: { amount: { amount: number } }) => centsOf(l.amount))
          : [centsOf(item.amount)];
        this.records.set(target, {
          id: body.items[i].id,
          status: 'READY_FOR_EXPORT',
          version: 1,
          reference: null,
          failure: null,
          lines: economicLines(body.items[i].line_items).map((l, k) => ({ id: l.id, cents: amounts[k]!, coded: null })),
        });
      } else {
        const record = this.records.get(target)!;
        record.version++;
        if (op.kind === 'export') Object.assign(record, { status: 'EXPORTED', reference: op.text, failure: null });
        else if (op.kind === 'fail') Object.assign(record, { status: 'REVIEW', reference: null, failure: op.text });
        else if (op.kind === 'reopen') record.status = 'REVIEW';
        else if (op.kind === 'approve') record.status = 'READY_FOR_EXPORT';
        else this.applyEdit(op, record, economicLines(body.record.line_items));
      }
    }
  }

  /** A coding, split or merge: the lines the model expects, with the ids of new lines taken from the answer. */
  private applyEdit(op: Op, record: ModelRecord, answered: { id: string }[]): void {
    const lines = record.lines;
    if (op.kind === 'code') {
      const { line_id } = op.body.lines[0];
      lines.find((l) => l.id === line_id)!.coded = op.text === '' ? null : op.text;
    } else if (op.kind === 'split') {
      // The parts take the line's place and, given no field_values, its coding.
      const at = lines.findIndex((l) => l.id === op.text);
      const parts = op.body.parts.map((p: { amount: { amount: number } }, k: number) => ({
        id: answered[at + k]!.id,
        cents: centsOf(p.amount),
        coded: lines[at]!.coded,
      }));
      lines.splice(at, 1, ...parts);
    } else {
      // The merged line takes the place of the first of them, their sum, and the coding they share.
      const merged = lines.filter((l) => op.body.line_ids.includes(l.id));
      const at = lines.indexOf(merged[0]!);
      const coded = merged.every((l) => l.coded === merged[0]!.coded) ? merged[0]!.coded : null;
      const line = { id: answered[at]!.id, cents: merged.reduce((sum, l) => sum + l.cents, 0), coded };
      record.lines = lines.flatMap((l) => (l === merged[0] ? [line] : merged.includes(l) ? [] : [l]));
    }
  }

  /** What `workloadStored` must equal. */
  expected() {
    return {
      values: Object.fromEntries(this.values),
      records: Object.fromEntries([...this.records].map(([s, r]) => [s, structuredClone(r)])),
    };
  }
}
