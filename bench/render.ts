/** `npx tsx bench/render.ts <results.json>...`: rewrites docs/performance.md's tables from saved runs. */
import fs from 'node:fs';
import path from 'node:path';
import { headingOf, renderDoc, type Scenario } from './lib/report.js';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
for (const file of process.argv.slice(2)) {
  const run = JSON.parse(fs.readFileSync(file, 'utf8')) as {
    date: string;
    dialect: string;
    machine: string;
    sizes: Record<string, number>;
    scenarios: Scenario[];
  };
  renderDoc(root, run.dialect, headingOf(run.dialect, run.date, run.machine, run.sizes), run.scenarios);
  process.stdout.write(`rendered ${file}\n`);
}
