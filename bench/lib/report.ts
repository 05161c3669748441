import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface Scenario {
  name: string;
  unit: string;
  throughput: number;
  p50?: number;
  p99?: number;
  errors?: number;
  /** Request-rate floor (bare Fastify) this scenario is compared with. */
  floor?: number;
  target?: number;
  targetMax?: number;
  targetP50?: number;
  targetP99?: number;
}

function verdict(s: Scenario): string {
  const checks: boolean[] = [];
  if (s.target !== undefined) checks.push(s.throughput >= s.target);
  if (s.targetMax !== undefined) checks.push(s.throughput <= s.targetMax);
  if (s.targetP50 !== undefined && s.p50 !== undefined) checks.push(s.p50 <= s.targetP50);
  if (s.targetP99 !== undefined && s.p99 !== undefined) checks.push(s.p99 <= s.targetP99);
  if (s.errors) checks.push(false);
  if (checks.length === 0) return '';
  return checks.every(Boolean) ? 'met' : 'MISSED';
}

function targetText(s: Scenario): string {
  const parts: string[] = [];
  if (s.target !== undefined) parts.push(`≥ ${s.target.toLocaleString('en-US')}`);
  if (s.targetMax !== undefined) parts.push(`≤ ${s.targetMax.toLocaleString('en-US')}`);
  if (s.targetP50 !== undefined) parts.push(`p50 ≤ ${s.targetP50} ms`);
  if (s.targetP99 !== undefined) parts.push(`p99 ≤ ${s.targetP99} ms`);
  return parts.join(', ');
}

export function machine(): string {
  const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
  return `${os.cpus().length} × ${cpu}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, ${os.type()} ${os.release()}, Node ${process.version}`;
}

/** Rows computed from others: how much slower a deep page is than the first (target ≤ 1.2×). */
function derived(scenarios: Scenario[]): Scenario[] {
  const first = scenarios.find((s) => s.name === 'list values, limit 1000, first page');
  const deep = scenarios.find((s) => s.name.startsWith('list values, limit 1000, page at depth'));
  if (!first || !deep || deep.throughput === 0) return [];
  return [
    {
      name: 'list values, limit 1000: time of the deep page ÷ time of the first',
      unit: '×',
      throughput: first.throughput / deep.throughput,
      targetMax: 1.2,
    },
  ];
}

function share(value: number, floor: number): string {
  const pct = (value / floor) * 100;
  return `${pct >= 10 ? pct.toFixed(0) : pct.toFixed(2)}% of floor`;
}

export function table(measured: Scenario[]): string {
  const scenarios = [...measured, ...derived(measured)];
  const rows = scenarios.map((s) => {
    const ratio = s.floor ? share(s.throughput, s.floor) : '';
    const fmt = (n: number) => (n >= 100 ? Math.round(n).toLocaleString('en-US') : n.toFixed(s.unit === '×' ? 2 : 1));
    return `| ${s.name} | ${fmt(s.throughput)} ${s.unit} | ${s.p50 ?? ''} | ${s.p99 ?? ''} | ${ratio} | ${targetText(s)} | ${verdict(s)} |`;
  });
  return [
    '| scenario | result | p50 ms | p99 ms | vs floor | target | |',
    '|---|---|---|---|---|---|---|',
    ...rows,
  ].join('\n');
}

/** Writes bench/results/<date>-<dialect>.json and .md, and the latest table into docs/performance.md. */
export function writeReport(
  root: string,
  dialect: string,
  sizes: Record<string, number>,
  scenarios: Scenario[],
): string[] {
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const dir = path.join(root, 'bench/results');
  fs.mkdirSync(dir, { recursive: true });
  const json = path.join(dir, `${stamp}-${dialect}.json`);
  const md = path.join(dir, `${stamp}-${dialect}.md`);
  const heading = headingOf(dialect, new Date().toISOString(), machine(), sizes);
  fs.writeFileSync(
    json,
    JSON.stringify({ date: new Date().toISOString(), dialect, machine: machine(), sizes, scenarios }, null, 2),
  );
  fs.writeFileSync(md, `${heading}${table(scenarios)}\n`);
  return [json, md, renderDoc(root, dialect, heading, scenarios)];
}

/** Replaces the dialect's block of docs/performance.md with this table. */
export function renderDoc(root: string, dialect: string, heading: string, scenarios: Scenario[]): string {
  const doc = path.join(root, 'docs/performance.md');
  const marker = `<!-- latest:${dialect} -->`;
  const current = fs.existsSync(doc) ? fs.readFileSync(doc, 'utf8') : '# Performance\n';
  const block = `${marker}\n${heading}${table(scenarios)}\n${marker}`;
  const pattern = new RegExp(`${marker}[\\s\\S]*?${marker}`);
  fs.writeFileSync(doc, pattern.test(current) ? current.replace(pattern, () => block) : `${current}\n${block}\n`);
  return doc;
}

export function headingOf(dialect: string, date: string, machineText: string, sizes: Record<string, number>): string {
  return `## ${dialect === 'postgres' ? 'PostgreSQL' : 'SQLite'} — ${date.slice(0, 10)}\n\nMachine: ${machineText}. Sizes: ${Object.entries(
    sizes,
  )
    .map(([k, v]) => `${k} ${v.toLocaleString('en-US')}`)
    .join(', ')} s/scenario.\n\n`;
}
