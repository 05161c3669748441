/**
 * A scenario's figure, the floor it is held to (measured in the same run), and its target: a share of the
 * floor's rate, a multiple of the floor's time, or an absolute bound where no floor applies (start-up, memory).
 */
export interface Scenario {
  name: string;
  unit: string;
  throughput: number;
  p50?: number;
  p99?: number;
  errors?: number;
  /** The floor's rate, in this scenario's unit, from the same run. */
  floor?: number;
  /** Which floor: `HTTP` (a bare Fastify route) or `data` (the request's SQL and JSON without HTTP). */
  floorName?: string;
  /** The floor's p99 (ms), where the target bounds p99 by it. */
  floorP99?: number;
  /** Rate at least this share of the floor's (0.5: half). */
  minShare?: number;
  /** Time per request (or row) at most this many times the floor's: floor ÷ rate ≤ maxTimes. */
  maxTimes?: number;
  /** p99 at most this many times the floor's p99. */
  maxP99Times?: number;
  target?: number;
  targetMax?: number;
  targetP50?: number;
  targetP99?: number;
  /** No target is given for it (issue 20's webhook figures): the figure is reported, neither met nor missed. */
  reported?: boolean;
  /** No floor fits it (a delay from commit to delivery): the floor column says so. */
  noFloor?: boolean;
}

/** autocannon reports whole milliseconds: a floor's p99 of 0 ms is below its resolution, counted as 1 ms. */
const floorP99Of = (s: Scenario) => Math.max(s.floorP99 ?? 0, 1);

/**
 * `met`, `missed`, `reported` for a figure no target is given for, or '' when the scenario has no target (or no
 * floor for a target relative to one).
 */
export function verdict(s: Scenario): '' | 'met' | 'missed' | 'reported' {
  const checks: boolean[] = [];
  const floor = s.floor !== undefined && s.floor > 0 ? s.floor : undefined;
  if (floor !== undefined && s.minShare !== undefined) checks.push(s.throughput >= s.minShare * floor);
  if (floor !== undefined && s.maxTimes !== undefined) checks.push(floor <= s.maxTimes * s.throughput);
  if (s.maxP99Times !== undefined && s.p99 !== undefined && s.floorP99 !== undefined) {
    checks.push(s.p99 <= s.maxP99Times * floorP99Of(s));
  }
  if (s.target !== undefined) checks.push(s.throughput >= s.target);
  if (s.targetMax !== undefined) checks.push(s.throughput <= s.targetMax);
  if (s.targetP50 !== undefined && s.p50 !== undefined) checks.push(s.p50 <= s.targetP50);
  if (s.targetP99 !== undefined && s.p99 !== undefined) checks.push(s.p99 <= s.targetP99);
  if (checks.length === 0) return s.reported ? 'reported' : '';
  if (s.errors) return 'missed';
  return checks.every(Boolean) ? 'met' : 'missed';
}

/** A figure as the tables print it: thousands separated from 100 up, one decimal below (two for ratios). */
export function figure(n: number, unit = ''): string {
  return n >= 100 ? Math.round(n).toLocaleString('en-US') : n.toFixed(unit === '×' ? 2 : 1);
}

function percent(share: number): string {
  const pct = share * 100;
  return `${pct >= 10 ? pct.toFixed(0) : pct.toFixed(2)}%`;
}

/** A data floor is read as time (a page takes 1.6× the floor's), unless the target is a share of its rate. */
const timeForm = (s: Scenario) => s.maxTimes !== undefined || (s.floorName === 'data' && s.minShare === undefined);

/**
 * The scenario against its floor: its time as a multiple of the floor's where the target is one (`1.62× the
 * floor's time`), else its rate as a share of the floor's (`18% of the floor`); with the p99 multiple when the
 * target bounds it.
 */
export function ratioText(s: Scenario): string {
  if (s.floor === undefined || s.floor <= 0 || s.throughput <= 0) return '';
  const parts = [
    timeForm(s) ? `${(s.floor / s.throughput).toFixed(2)}× its time` : `${percent(s.throughput / s.floor)} of its rate`,
  ];
  if (s.maxP99Times !== undefined && s.p99 !== undefined && s.floorP99 !== undefined) {
    parts.push(`p99 ${(s.p99 / floorP99Of(s)).toFixed(1)}×`);
  }
  return parts.join(', ');
}

export function targetText(s: Scenario): string {
  const parts: string[] = [];
  if (s.minShare !== undefined) parts.push(`≥ ${percent(s.minShare)} of its rate`);
  if (s.maxTimes !== undefined) parts.push(`≤ ${s.maxTimes}× its time`);
  if (s.maxP99Times !== undefined) parts.push(`p99 ≤ ${s.maxP99Times}× its p99`);
  if (s.target !== undefined) parts.push(`≥ ${s.target.toLocaleString('en-US')}`);
  if (s.targetMax !== undefined) parts.push(`≤ ${s.targetMax.toLocaleString('en-US')}`);
  if (s.targetP50 !== undefined) parts.push(`p50 ≤ ${s.targetP50} ms`);
  if (s.targetP99 !== undefined) parts.push(`p99 ≤ ${s.targetP99} ms`);
  if (parts.length === 0 && s.reported) return 'none given';
  return parts.join(', ');
}

/** The floor column: which floor and its figure (with its p99 when the target uses it). */
export function floorText(s: Scenario): string {
  if (s.floor === undefined) return s.noFloor ? 'none' : '';
  const p99 = s.maxP99Times !== undefined && s.floorP99 !== undefined ? `, p99 ${s.floorP99} ms` : '';
  const name = s.floorName ?? 'HTTP';
  // The HTTP floor is a rate of requests whatever the scenario counts (pages, records).
  return `${name}: ${figure(s.floor)} ${name === 'HTTP' ? 'req/s' : s.unit}${p99}`;
}
