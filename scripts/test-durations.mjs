#!/usr/bin/env node
// Writes test/support/durations.json, the seconds each test file took in one run of the suite, from vitest's JSON
// report: the order files start in on a fresh clone (test/support/sequencer.ts starts the longest first, so that no
// long file starts last and runs alone). Usage:
//   npx vitest run --reporter=json --outputFile=/tmp/report.json && node scripts/test-durations.mjs /tmp/report.json
// A file's figure only orders the run: a stale or missing one makes the suite slower, never wrong
// (test/unit/test-durations.test.ts checks that every name is a test file that exists).
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const [reportFile] = process.argv.slice(2);
if (!reportFile) {
  console.error('usage: node scripts/test-durations.mjs REPORT.json (vitest --reporter=json --outputFile=…)');
  process.exit(2);
}
const report = JSON.parse(readFileSync(reportFile, 'utf8'));
// The repository's root, wherever the script is run from: the report names files by absolute path.
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const durations = Object.fromEntries(
  report.testResults
    .map((file) => [path.relative(root, file.name), Math.round((file.endTime - file.startTime) / 100) / 10])
    .sort(([a], [b]) => (a < b ? -1 : 1)),
);
writeFileSync(path.join(root, 'test/support/durations.json'), `${JSON.stringify(durations, null, 2)}\n`);
console.log(`test/support/durations.json: ${Object.keys(durations).length} files`);
