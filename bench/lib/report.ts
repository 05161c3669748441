import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { scalingTable, type Pass } from './scaling.js';
import { figure, floorText, ratioText, targetText, verdict, type Scenario } from './targets.js';

export type { Scenario } from './targets.js';

export function machine(): string {
  const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
  return `${os.cpus().length} × ${cpu}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, ${os.type()} ${os.release()}, Node ${process.version}`;
}

/** Rows computed from others: how much slower a deep page is than the first (issue 16: ≤ 1.1×). */
function derived(scenarios: Scenario[]): Scenario[] {
  const first = scenarios.find((s) => s.name === 'list values, limit 1000, first page');
  const deep = scenarios.find((s) => s.name.startsWith('list values, limit 1000, page at depth'));
  if (!first || !deep || deep.throughput === 0) return [];
  return [
    {
      name: 'list values, limit 1000: time of the deep page ÷ time of the first',
      unit: '×',
      throughput: first.throughput / deep.throughput,
      targetMax: 1.1,
    },
  ];
}

export function table(measured: Scenario[]): string {
  const scenarios = [...measured, ...derived(measured)];
  const rows = scenarios.map(
    (s) =>
      `| ${s.name} | ${figure(s.throughput, s.unit)} ${s.unit} | ${s.p50 ?? ''} | ${s.p99 ?? ''} | ${floorText(s)} | ${ratioText(s)} | ${targetText(s)} | ${verdict(s)} |`,
  );
  return [
    '| scenario | result | p50 ms | p99 ms | floor, same run | vs floor | target | |',
    '|---|---|---|---|---|---|---|---|',
    ...rows,
  ].join('\n');
}

/**
 * Writes bench/results/<date>-<dialect>.json and .md, and the latest table into docs/performance.md (unless
 * `docs` is false: a rehearsal).
 */
export function writeReport(
  root: string,
  dialect: string,
  sizes: Record<string, number>,
  scenarios: Scenario[],
  docs = true,
  mode?: string,
): string[] {
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const dir = path.join(root, 'bench/results');
  fs.mkdirSync(dir, { recursive: true });
  const name = mode ? `${dialect}-${mode}` : dialect;
  const json = path.join(dir, `${stamp}-${name}.json`);
  const md = path.join(dir, `${stamp}-${name}.md`);
  const heading = headingOf(dialect, new Date().toISOString(), machine(), sizes).replace(
    /^## (\S+)/,
    mode ? `## $1, ${mode}` : '## $1',
  );
  fs.writeFileSync(
    json,
    JSON.stringify({ date: new Date().toISOString(), dialect, machine: machine(), sizes, scenarios }, null, 2),
  );
  fs.writeFileSync(md, `${heading}${table(scenarios)}\n`);
  return docs ? [json, md, renderDoc(root, name, heading, scenarios)] : [json, md];
}

/** Replaces the block of docs/performance.md (a dialect's, or a mode's of it: `sqlite-coding`) with this table. */
export function renderDoc(root: string, block: string, heading: string, scenarios: Scenario[]): string {
  const doc = path.join(root, 'docs/performance.md');
  const marker = `<!-- latest:${block} -->`;
  const current = fs.existsSync(doc) ? fs.readFileSync(doc, 'utf8') : '# Performance\n';
  const text = `${marker}\n${heading}${table(scenarios)}\n${marker}`;
  const pattern = new RegExp(`${marker}[\\s\\S]*?${marker}`);
  fs.writeFileSync(doc, pattern.test(current) ? current.replace(pattern, () => text) : `${current}\n${text}\n`);
  return doc;
}

export function headingOf(dialect: string, date: string, machineText: string, sizes: Record<string, number>): string {
  return `## ${dialect === 'postgres' ? 'PostgreSQL' : 'SQLite'} — ${date.slice(0, 10)}\n\nMachine: ${machineText}. Sizes: ${Object.entries(
    sizes,
  )
    .map(([k, v]) => `${k} ${v.toLocaleString('en-US')}`)
    .join(', ')}${'duration' in sizes ? ' s/scenario' : ''}.\n\n`;
}

/** Writes bench/results/<date>-<dialect>-scaling.json and .md (`--scaling`; docs/performance.md is left alone). */
export function writeScalingReport(
  root: string,
  dialect: string,
  sizes: Record<string, number>,
  workers: number,
  passes: Pass[],
): string[] {
  const date = new Date().toISOString();
  const stamp = date.replace(/[:.]/g, '-');
  const dir = path.join(root, 'bench/results');
  fs.mkdirSync(dir, { recursive: true });
  const json = path.join(dir, `${stamp}-${dialect}-scaling.json`);
  const md = path.join(dir, `${stamp}-${dialect}-scaling.md`);
  fs.writeFileSync(
    json,
    JSON.stringify({ date, dialect, machine: machine(), sizes, workers: [1, workers], passes }, null, 2),
  );
  const heading = headingOf(dialect, date, machine(), sizes).replace(
    /^## (\S+)/,
    `## $1, scaling: WORKERS=1 and WORKERS=${workers}`,
  );
  const sections = passes.map((p) => `### ${p.name}\n\n${p.cores}.\n\n${scalingTable(p, workers)}\n`);
  fs.writeFileSync(md, `${heading}${SCALING_NOTE}\n\n${sections.join('\n')}`);
  return [json, md];
}

const SCALING_NOTE =
  'Each row: the same load on WORKERS=1 and on WORKERS=N, in alternating slices of the same total time; the ratio ' +
  'N ÷ 1 beside the same ratio of a bare Fastify route under node:cluster at the same counts. The load generator ' +
  '(autocannon, one thread) runs on the same machine: with N workers on all N cores it takes part of their cores, ' +
  'for the floor as for svc, and a bare route is cheap enough that the load generator may be what limits the ' +
  "floor: a floor's ratio near or under 1 says the machine had no core to spare, not that Fastify does not scale.";
