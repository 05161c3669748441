// `npm run soak` (issue 15; not run in CI): three files of the reliability suite at soak length, through vitest with
// the reliability config (which builds dist/ first), on every dialect in DIALECTS. It prints the tests' own output
// and then their `[reliability]` figures together. A knob already set in the environment wins, so
// `CRASH_KILLS=3 GARBAGE_RUNS=20 MULTI_NODE_SECONDS=10 npm run soak` is a short rehearsal. docs/reliability.md, "Soak".
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const SOAK = {
  CRASH_KILLS: '100', // SIGKILLs of the serving process per dialect (CI: 8)
  GARBAGE_RUNS: '2200', // fuzzed inputs per operation: 73 × 2200 + 5 × 1100 = 166,100 per dialect (CI: 100)
  MULTI_NODE_SECONDS: '600', // the multi-node chaos, PostgreSQL only, needs HAProxy and Redis (CI: 12)
};
const FILES = ['crash', 'garbage', 'garbage.shard2', 'multi-node'].map((name) => `test/reliability/${name}.test.ts`);

const root = fileURLToPath(new URL('..', import.meta.url));
const env = { ...process.env };
for (const [name, value] of Object.entries(SOAK)) env[name] ||= value;
const knobs = Object.keys(SOAK).map((name) => `${name}=${env[name]}`);
console.log(`[soak] ${knobs.join(' ')}`);

const started = Date.now();
const figures = [];
let partial = '';
const vitest = fileURLToPath(new URL('../node_modules/vitest/vitest.mjs', import.meta.url));
const child = spawn(
  process.execPath,
  [vitest, 'run', '--project', 'reliability', '--project', 'reliability-inprocess', ...FILES],
  {
    cwd: root,
    env,
    stdio: ['inherit', 'pipe', 'inherit'],
  },
);
child.stdout.on('data', (chunk) => {
  process.stdout.write(chunk);
  const lines = (partial + chunk.toString()).split('\n');
  partial = lines.pop() ?? '';
  figures.push(...lines.filter((line) => line.startsWith('[reliability] ')));
});
child.on('close', (code, signal) => {
  const minutes = ((Date.now() - started) / 60_000).toFixed(1);
  console.log(`\n[soak] ${code === 0 ? 'passed' : `FAILED (${signal ?? `exit ${code}`})`} in ${minutes} min`);
  for (const line of figures) console.log(line);
  if (!figures.some((line) => line.startsWith('[reliability] multi-node chaos:')))
    console.log('[soak] no multi-node chaos ran (it needs PostgreSQL in DIALECTS, HAProxy and Redis)');
  process.exit(code ?? 1);
});
