import { figure } from './targets.js';

/**
 * `--scaling` (issue 15): each read scenario and a mixed load at WORKERS=1 and WORKERS=N, and the ratio N ÷ 1
 * beside the same ratio of a bare Fastify floor under node:cluster. The words and tables are here (tested in
 * test/unit/bench-scaling.test.ts); bench/scenarios/scaling.ts measures.
 */

/** One side of a row: the scenario at one worker count. */
export interface Side {
  rps: number;
  p50: number;
  p99: number;
  /** Failed requests and answers other than 2xx. */
  errors: number;
}

export interface ScalingRow {
  name: string;
  unit: string;
  one: Side;
  many: Side;
  /** many ÷ one */
  ratio: number;
  /** The floor's ratio in the same pass; absent on the floor's own row. */
  floorRatio?: number;
  verdict: string;
}

export interface Pass {
  /** `pinned` or `unpinned` */
  name: string;
  /** Who had which cores, in words (printed before the pass's lines and above its table). */
  cores: string;
  rows: ScalingRow[];
}

export function scalingRatio(one: number, many: number): number {
  return one > 0 ? many / one : 0;
}

/** How the service's gain from `workers` workers compares with the floor's, in words. */
export function scalingVerdict(ratio: number, floorRatio: number, workers: number): string {
  const floor = `${floorRatio.toFixed(2)}×`;
  if (floorRatio < 1.1) {
    return ratio >= 1.1
      ? `scales, though the floor did not (${floor})`
      : `the floor did not scale either (${floor}): no spare core to show it`;
  }
  if (ratio >= 0.9 * floorRatio) return 'scales as the floor does';
  if (ratio >= 1.1) return 'scales, less than the floor';
  if (ratio > 0.9) return `no gain from ${workers} workers`;
  return `slower with ${workers} workers`;
}

/** `0-3`, `0,2`, `5`: a list of cpu ids as taskset reads it. */
export function cpuList(cpus: readonly number[]): string {
  const parts: string[] = [];
  for (let i = 0; i < cpus.length;) {
    let j = i;
    while (j + 1 < cpus.length && cpus[j + 1] === cpus[j]! + 1) j++;
    parts.push(j > i ? `${cpus[i]}-${cpus[j]}` : `${cpus[i]}`);
    i = j + 1;
  }
  return parts.join(',');
}

/** taskset's list (`0-2,4`) as cpu ids. */
export function parseCpuList(text: string): number[] {
  const cpus: number[] = [];
  for (const part of text.trim().split(',')) {
    const m = /^(\d+)(?:-(\d+))?$/.exec(part);
    if (!m) throw new Error(`not a cpu list: ${text}`);
    for (let c = Number(m[1]); c <= Number(m[2] ?? m[1]); c++) cpus.push(c);
  }
  return cpus;
}

export const coresText = (cpus: readonly number[]) => `${cpus.length === 1 ? 'core' : 'cores'} ${cpuList(cpus)}`;

export const workersText = (n: number) => `${n} worker${n === 1 ? '' : 's'}`;

/** A side's line, in the bench's style: `get one value, 2 workers (cores 0-1): 4,080 req/s, p50 9 ms, p99 53 ms`. */
export function sideLine(name: string, where: string, unit: string, side: Side): string {
  const errors = side.errors > 0 ? `, ${side.errors} errors` : '';
  return `${name}, ${where}: ${figure(side.rps, unit)} ${unit}, p50 ${side.p50} ms, p99 ${side.p99} ms${errors}`;
}

/** A row's ratio line: `get one value: 2 workers ÷ 1 = 1.47× | floor 1.62× | scales, less than the floor`. */
export function ratioLine(row: ScalingRow, workers: number): string {
  const floor = row.floorRatio === undefined ? '' : ` | floor ${row.floorRatio.toFixed(2)}×`;
  return `${row.name}: ${workersText(workers)} ÷ 1 = ${row.ratio.toFixed(2)}×${floor}${row.verdict ? ` | ${row.verdict}` : ''}`;
}

const cell = (side: Side, unit: string) =>
  `${figure(side.rps, unit)} ${unit}, p99 ${side.p99} ms${side.errors > 0 ? `, ${side.errors} errors` : ''}`;

/** A pass as a Markdown table. */
export function scalingTable(pass: Pass, workers: number): string {
  const rows = pass.rows.map(
    (r) =>
      `| ${r.name} | ${cell(r.one, r.unit)} | ${cell(r.many, r.unit)} | ${r.ratio.toFixed(2)}× | ${r.floorRatio === undefined ? '' : `${r.floorRatio.toFixed(2)}×`} | ${r.verdict} |`,
  );
  return [
    `| scenario | 1 worker | ${workersText(workers)} | ${workers} ÷ 1 | floor ${workers} ÷ 1 | |`,
    '|---|---|---|---|---|---|',
    ...rows,
  ].join('\n');
}
