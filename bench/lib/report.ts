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

export function table(scenarios: Scenario[]): string {
  const rows = scenarios.map((s) => {
    const ratio = s.floor ? `${((s.throughput / s.floor) * 100).toFixed(0)}% of floor` : '';
    const fmt = (n: number) => (n >= 100 ? Math.round(n).toLocaleString('en-US') : n.toFixed(1));
    return `| ${s.name} | ${fmt(s.throughput)} ${s.unit} | ${s.p50 ?? ''} | ${s.p99 ?? ''} | ${ratio} | ${targetText(s)} | ${verdict(s)} |`;
  });
  return ['| scenario | result | p50 ms | p99 ms | vs floor | target | |', '|---|---|---|---|---|---|---|', ...rows].join('\n');
}

/** Writes bench/results/<date>-<dialect>.json and .md, and the latest table into docs/performance.md. */
export function writeReport(root: string, dialect: string, sizes: Record<string, number>, scenarios: Scenario[]): string[] {
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const dir = path.join(root, 'bench/results');
  fs.mkdirSync(dir, { recursive: true });
  const json = path.join(dir, `${stamp}-${dialect}.json`);
  const md = path.join(dir, `${stamp}-${dialect}.md`);
  const heading = `## ${dialect === 'postgres' ? 'PostgreSQL' : 'SQLite'} — ${new Date().toISOString().slice(0, 10)}\n\nMachine: ${machine()}. Sizes: ${Object.entries(sizes).map(([k, v]) => `${k} ${v.toLocaleString('en-US')}`).join(', ')} s/scenario.\n\n`;
  fs.writeFileSync(json, JSON.stringify({ date: new Date().toISOString(), dialect, machine: machine(), sizes, scenarios }, null, 2));
  fs.writeFileSync(md, `${heading}${table(scenarios)}\n`);
  const doc = path.join(root, 'docs/performance.md');
  const marker = `<!-- latest:${dialect} -->`;
  const current = fs.existsSync(doc) ? fs.readFileSync(doc, 'utf8') : '# Performance\n';
  const block = `${marker}\n${heading}${table(scenarios)}\n${marker}`;
  const pattern = new RegExp(`${marker}[\\s\\S]*?${marker}`);
  fs.writeFileSync(doc, pattern.test(current) ? current.replace(pattern, block) : `${current}\n${block}\n`);
  return [json, md, doc];
}
