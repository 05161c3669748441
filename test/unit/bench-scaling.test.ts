import { describe, expect, it } from 'vitest';
import {
  coresText,
  cpuList,
  parseCpuList,
  ratioLine,
  scalingRatio,
  scalingTable,
  scalingVerdict,
  sideLine,
  type ScalingRow,
} from '../../bench/lib/scaling.js';

const side = (rps: number, errors = 0) => ({ rps, p50: 3, p99: 12, errors });

describe('bench --scaling: the ratio and its words', () => {
  it('divides N workers by 1, and gives 0 for a side that served nothing', () => {
    expect(scalingRatio(1000, 1800)).toBe(1.8);
    expect(scalingRatio(0, 10)).toBe(0);
  });

  it('compares the service’s ratio with the floor’s', () => {
    expect(scalingVerdict(1.8, 1.9, 2)).toBe('scales as the floor does');
    expect(scalingVerdict(1.71, 1.9, 2)).toBe('scales as the floor does');
    expect(scalingVerdict(1.4, 1.9, 2)).toBe('scales, less than the floor');
    expect(scalingVerdict(1.0, 1.9, 2)).toBe('no gain from 2 workers');
    expect(scalingVerdict(0.7, 1.9, 2)).toBe('slower with 2 workers');
    // A floor that did not scale leaves nothing to compare with: said, not hidden.
    expect(scalingVerdict(1.02, 1.05, 2)).toBe('the floor did not scale either (1.05×): no spare core to show it');
    expect(scalingVerdict(1.3, 1.05, 2)).toBe('scales, though the floor did not (1.05×)');
  });
});

describe('bench --scaling: cpu lists as taskset reads them', () => {
  it('reads and writes ranges and lists', () => {
    expect(parseCpuList('0-1')).toEqual([0, 1]);
    expect(parseCpuList('0,2-4,7\n')).toEqual([0, 2, 3, 4, 7]);
    expect(() => parseCpuList('0-1 mask 3')).toThrow(/not a cpu list/);
    expect(cpuList([0, 1])).toBe('0-1');
    expect(cpuList([0, 2, 3, 4, 7])).toBe('0,2-4,7');
    expect(cpuList([5])).toBe('5');
    expect(coresText([0])).toBe('core 0');
    expect(coresText([0, 1])).toBe('cores 0-1');
  });
});

describe('bench --scaling: lines and table', () => {
  const row: ScalingRow = {
    name: 'get one value (50 connections)',
    unit: 'req/s',
    one: side(4080),
    many: side(6000, 3),
    ratio: 6000 / 4080,
    floorRatio: 1.62,
    verdict: 'scales, less than the floor',
  };

  it('prints each side and the ratio in the bench’s style', () => {
    expect(sideLine(row.name, '1 worker (core 0)', 'req/s', row.one)).toBe(
      'get one value (50 connections), 1 worker (core 0): 4,080 req/s, p50 3 ms, p99 12 ms',
    );
    expect(sideLine(row.name, '2 workers', 'req/s', row.many)).toBe(
      'get one value (50 connections), 2 workers: 6,000 req/s, p50 3 ms, p99 12 ms, 3 errors',
    );
    expect(ratioLine(row, 2)).toBe(
      'get one value (50 connections): 2 workers ÷ 1 = 1.47× | floor 1.62× | scales, less than the floor',
    );
    const floor: ScalingRow = { ...row, name: 'floor', floorRatio: undefined, verdict: '', ratio: 1.62 };
    expect(ratioLine(floor, 2)).toBe('floor: 2 workers ÷ 1 = 1.62×');
  });

  it('writes a pass as a table', () => {
    expect(scalingTable({ name: 'pinned', cores: '', rows: [row] }, 2)).toBe(
      [
        '| scenario | 1 worker | 2 workers | 2 ÷ 1 | floor 2 ÷ 1 | |',
        '|---|---|---|---|---|---|',
        '| get one value (50 connections) | 4,080 req/s, p99 12 ms | 6,000 req/s, p99 12 ms, 3 errors | 1.47× | 1.62× | scales, less than the floor |',
      ].join('\n'),
    );
  });
});
