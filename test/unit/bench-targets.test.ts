import { describe, expect, it } from 'vitest';
import { decodeParams, encodeParams, statementsOf } from '../../bench/lib/capture-log.js';
import { insertColumns } from '../../bench/lib/data-floor.js';
import { floorText, ratioText, targetText, verdict, type Scenario } from '../../bench/lib/targets.js';

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
});
