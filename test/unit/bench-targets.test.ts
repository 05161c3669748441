import { describe, expect, it } from 'vitest';
import { decodeParams, encodeParams, statementsOf } from '../../bench/lib/capture-log.js';
import { insertColumns, isRead } from '../../bench/lib/data-floor.js';
import { floorText, ratioText, targetText, verdict, type Scenario } from '../../bench/lib/targets.js';
import { deliveryFigures, percentile, type Arrival } from '../../bench/lib/webhooks.js';
import { newSecret, signedHeaders } from '../../src/modules/webhooks/webhooks.signing.js';

const scenario = (s: Partial<Scenario>): Scenario => ({ name: 's', unit: 'req/s', throughput: 100, ...s });

describe('bench: a scenario against its floor', () => {
  it('holds a rate to a share of the floor', () => {
    const s = scenario({ throughput: 500, floor: 1000, minShare: 0.5 });
    expect(verdict(s)).toBe('met');
    expect(verdict({ ...s, throughput: 499 })).toBe('missed');
    expect(ratioText(s)).toBe('50% of its rate');
    expect(targetText(s)).toBe('≥ 50% of its rate');
    expect(floorText(s)).toBe('HTTP: 1,000 req/s');
  });

  it('holds a time to a multiple of the floor’s, and reads a data floor as time', () => {
    const s = scenario({ unit: 'pages/s', throughput: 400, floor: 800, floorName: 'data', maxTimes: 2 });
    expect(verdict(s)).toBe('met');
    expect(verdict({ ...s, throughput: 399 })).toBe('missed');
    expect(ratioText(s)).toBe('2.00× its time');
    expect(targetText(s)).toBe('≤ 2× its time');
    expect(floorText(s)).toBe('data: 800 pages/s');
    // Without a target, still as time.
    expect(ratioText({ ...s, maxTimes: undefined })).toBe('2.00× its time');
  });

  it('bounds p99 by the floor’s, a floor below autocannon’s 1 ms counting as 1 ms', () => {
    const s = scenario({ throughput: 600, floor: 1000, floorP99: 0, p99: 3, minShare: 0.5, maxP99Times: 3 });
    expect(verdict(s)).toBe('met');
    expect(verdict({ ...s, p99: 4 })).toBe('missed');
    expect(ratioText({ ...s, floorP99: 2 })).toBe('60% of its rate, p99 1.5×');
    expect(floorText({ ...s, floorP99: 2 })).toBe('HTTP: 1,000 req/s, p99 2 ms');
  });

  it('keeps absolute targets, and counts errors as missed', () => {
    expect(verdict(scenario({ unit: 'ms', throughput: 900, targetMax: 1000 }))).toBe('met');
    expect(verdict(scenario({ unit: 'ms', throughput: 1001, targetMax: 1000 }))).toBe('missed');
    expect(verdict(scenario({ floor: 100, minShare: 0.5, errors: 3 }))).toBe('missed');
    expect(verdict(scenario({ floor: 100 }))).toBe('');
    expect(ratioText(scenario({ throughput: 5, floor: 1000 }))).toBe('0.50% of its rate');
  });
});

describe('bench: figures reported without a target', () => {
  it('says reported, and none for a missing floor', () => {
    const s = scenario({ unit: 'events/s', p50: 12, p99: 40, reported: true, noFloor: true });
    expect(verdict(s)).toBe('reported');
    expect(targetText(s)).toBe('none given');
    expect(floorText(s)).toBe('none');
    expect(ratioText(s)).toBe('');
    const withFloor = scenario({ unit: 'events/s', throughput: 150, floor: 600, floorName: 'sender', reported: true });
    expect(verdict(withFloor)).toBe('reported');
    expect(floorText(withFloor)).toBe('sender: 600 events/s');
    expect(ratioText(withFloor)).toBe('25% of its rate');
    expect(verdict(scenario({ reported: true, targetMax: 1, throughput: 2 }))).toBe('missed');
  });
});

describe('bench: webhook deliveries', () => {
  it('takes the nearest-rank percentile', () => {
    const xs = Array.from({ length: 100 }, (_, i) => 100 - i);
    expect(percentile(xs, 50)).toBe(50);
    expect(percentile(xs, 99)).toBe(99);
    expect(percentile([7], 99)).toBe(7);
  });

  it('counts verified first deliveries against their commits, duplicates apart', async () => {
    const secret = newSecret();
    const arrival = (event: string, record: string, at: number): Arrival => {
      const body = JSON.stringify({
        id: event,
        type: 'accounting_record.ready_for_export',
        timestamp: new Date().toISOString(),
        account_id: 'a',
        data: { object: 'accounting_record', id: record, version: 2 },
      });
      return { at, body, headers: signedHeaders([secret], event, new Date(), body) };
    };
    const committed = new Map([
      ['r1', 1000],
      ['r2', 1000],
    ]);
    const figures = await deliveryFigures(
      secret,
      [arrival('e1', 'r1', 1010), arrival('e2', 'r2', 1500), arrival('e1', 'r1', 1600)],
      committed,
    );
    expect(figures).toMatchObject({ delivered: 2, duplicates: 1, p50: 10, p99: 500, max: 500 });
    expect(figures.rate).toBeCloseTo(4);
    await expect(deliveryFigures(newSecret(), [arrival('e1', 'r1', 1010)], committed)).rejects.toThrow();
    await expect(deliveryFigures(secret, [arrival('e1', 'r1', 1010)], committed)).rejects.toThrow(/not delivered/);
  });
});

describe('bench: captured SQL', () => {
  it('keeps Buffers and BigInts through the log', () => {
    const params = [1, 'a', null, Buffer.from([0, 255]), 2n ** 63n - 1n];
    const line = JSON.stringify({ tag: 'r1', sql: 'select ?', params: encodeParams(params) });
    const other = JSON.stringify({ tag: 'r2', sql: 'select 2', params: [] });
    expect(statementsOf(`${line}\n${other}\n`, 'r1')).toEqual([{ sql: 'select ?', params }]);
    expect(decodeParams(encodeParams(params))).toEqual(params);
  });

  it('reads the columns of an INSERT in parameter order', () => {
    expect(insertColumns('insert into "field_values" ("account_id", "svc_id") values (?, ?), (?, ?)')).toEqual([
      'account_id',
      'svc_id',
    ]);
    expect(() => insertColumns('update t set a = 1')).toThrow(/not an insert/);
  });

  it('replays reads only: selects and the read of a pragma, never a pragma that sets', () => {
    expect(isRead('select 1')).toBe(true);
    expect(isRead(' with v as (select 1) select * from v')).toBe(true);
    expect(isRead('pragma data_version')).toBe(true);
    expect(isRead('PRAGMA main.data_version;')).toBe(true);
    expect(isRead('pragma synchronous = FULL')).toBe(false);
    expect(isRead('pragma optimize(0x10002)')).toBe(false);
    expect(isRead('update t set a = 1')).toBe(false);
  });
});
