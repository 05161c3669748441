#!/usr/bin/env node
// Runs the suite N times in a row and reports, per test, how many runs it failed in: the check that the suite is
// never flaky (issue 29 asks for 20 consecutive clean runs). Usage:
//   node scripts/repeat-suite.mjs [--runs N] [--report FILE] [vitest arguments: --project api, files, ...]
// Every run is `vitest run` with the JSON reporter; a run that crashes before writing its report counts as a failure
// of the run itself. Exits 1 when any run failed.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const args = process.argv.slice(2);
let runs = 20;
let reportFile = null;
const passThrough = [];
for (let i = 0; i < args.length; i += 1) {
  if (args[i] === '--runs') runs = Number(args[++i]);
  else if (args[i] === '--report') reportFile = args[++i];
  else passThrough.push(args[i]);
}
if (!Number.isInteger(runs) || runs < 1) {
  console.error('repeat-suite: --runs takes a whole number of at least 1');
  process.exit(2);
}

const vitest = join(process.cwd(), 'node_modules', 'vitest', 'vitest.mjs');
const work = mkdtempSync(join(tmpdir(), 'svc-repeat-'));
/** test id → { runs failed, first message } */
const failures = new Map();
const results = [];

function testId(file, assertion) {
  const where = file.startsWith(process.cwd()) ? file.slice(process.cwd().length + 1) : file;
  return `${where} > ${assertion.fullName}`;
}

for (let run = 1; run <= runs; run += 1) {
  const out = join(work, `run-${run}.json`);
  const started = Date.now();
  const child = spawnSync(process.execPath, [vitest, 'run', '--reporter=json', `--outputFile=${out}`, ...passThrough], {
    stdio: ['ignore', 'ignore', 'inherit'],
    env: process.env,
  });
  const seconds = Math.round((Date.now() - started) / 1000);
  let report;
  try {
    report = JSON.parse(readFileSync(out, 'utf8'));
  } catch {
    report = null;
  }
  if (report === null) {
    results.push({ run, seconds, passed: 0, failed: 0, crashed: true, exit: child.status });
    const entry = failures.get('(the run itself)') ?? { count: 0, message: `exit ${child.status}, no report` };
    entry.count += 1;
    failures.set('(the run itself)', entry);
    console.log(`run ${run}/${runs}: no report (exit ${child.status}) after ${seconds} s`);
    continue;
  }
  let failedHere = 0;
  for (const file of report.testResults ?? []) {
    const failedAssertions = (file.assertionResults ?? []).filter((a) => a.status === 'failed');
    // A file that fails outside any test (a hook, an import) has no failed assertion but a failed status.
    if (failedAssertions.length === 0 && file.status === 'failed') {
      failedAssertions.push({ fullName: '(file: setup or hooks)', failureMessages: [file.message ?? ''] });
    }
    for (const assertion of failedAssertions) {
      failedHere += 1;
      const id = testId(file.name, assertion);
      const entry = failures.get(id) ?? {
        count: 0,
        message: String(assertion.failureMessages?.[0] ?? '').slice(0, 300),
      };
      entry.count += 1;
      failures.set(id, entry);
    }
  }
  results.push({
    run,
    seconds,
    passed: report.numPassedTests,
    failed: failedHere,
    skipped: report.numPendingTests + (report.numTodoTests ?? 0),
    crashed: false,
    exit: child.status,
  });
  console.log(`run ${run}/${runs}: ${report.numPassedTests} passed, ${failedHere} failed, ${seconds} s`);
}

rmSync(work, { recursive: true, force: true });
const clean = results.filter((r) => !r.crashed && r.failed === 0 && r.exit === 0).length;
console.log(`\n${clean} of ${runs} runs clean (vitest run ${passThrough.join(' ')})`);
if (failures.size > 0) {
  console.log('\nfailures per test (runs failed / runs):');
  for (const [id, { count, message }] of [...failures].sort((a, b) => b[1].count - a[1].count)) {
    console.log(`  ${count}/${runs}  ${id}\n         ${message.split('\n')[0]}`);
  }
}
if (reportFile) {
  const failuresOut = Object.fromEntries([...failures].map(([id, v]) => [id, v]));
  writeFileSync(reportFile, `${JSON.stringify({ runs, clean, results, failures: failuresOut }, null, 2)}\n`);
}
process.exit(clean === runs ? 0 : 1);
