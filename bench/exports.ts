/**
 * `npx tsx bench/exports.ts [--records N | --sizes 10000,25000,50000,100000]` (SQLite): the file export of issue 33
 * against the raw read of the same records. For each size, seeds a demo company (`svc seed`: READY_FOR_EXPORT
 * records coded in full) into a temporary database of its own, then times, best of three, (a) the raw read: the
 * export's own query of every READY_FOR_EXPORT record with its details, and (b) the export: that read, the mapping
 * and the hledger journal written as text. The target: the export runs at least at 50% of the raw read's speed
 * (records per second). Each line carries the machine's load average (1 minute) before and after its size: the
 * figures of one size are comparable with each other, not with another run's.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { seed } from '../src/cli/seed.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { openDatabase } from '../src/db/open.js';
import { exportSelectionService } from '../src/modules/accounting/export-selection.service.js';
import type { ExportInput } from '../src/modules/exports/exports.schemas.js';
import { exportsService } from '../src/modules/exports/exports.service.js';

const { values } = parseArgs({ options: { records: { type: 'string' }, sizes: { type: 'string' } } });
const sizes = (values.sizes ?? values.records ?? '100000').split(',').map(Number);
if (sizes.some((n) => !Number.isInteger(n) || n <= 0))
  throw new Error('--sizes: positive whole numbers, comma-separated');
const tenant = { accountId: 'acct_bench_exports' };
const hledger: ExportInput = { format: 'hledger' };
const load1 = () => Number(os.loadavg()[0]!.toFixed(2));

async function measure(ready: number): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-exports-'));
  const db = openDatabase({ dialect: 'sqlite', path: path.join(dir, 'bench.sqlite') }, { poolSize: 1 });
  try {
    await migrateToLatest(db);
    // About a quarter of the seed's history is READY_FOR_EXPORT: ask for four times as many records.
    await seed(db, ['--account', tenant.accountId, '--records', String(ready * 4)], () => {});
    const loadBefore = load1();
    // Raw read and export alternate (raw, export, raw, export…): a drift of the machine's speed weighs on both.
    const readOnce = async () => {
      const { rows } = await db.read((ex) =>
        exportSelectionService.rows(ex, tenant, { kind: 'ready', from: null, to: null }),
      );
      return rows.length;
    };
    const exportOnce = async () => {
      const out = await db.read((ex) => exportsService.file(ex, tenant, hledger, '2026-01-01'));
      return out.recordIds.length;
    };
    const raws: { ms: number; records: number }[] = [];
    const files: { ms: number; records: number }[] = [];
    for (let i = 0; i < 3; i++) {
      raws.push(await once(readOnce));
      files.push(await once(exportOnce));
    }
    const fastest = (xs: { ms: number; records: number }[]) => xs.reduce((a, b) => (b.ms < a.ms ? b : a));
    const raw = fastest(raws);
    const file = fastest(files);
    const rate = (r: { ms: number; records: number }) => (r.records / r.ms) * 1000;
    const ratio = rate(file) / rate(raw);
    console.log(
      JSON.stringify({
        records: file.records,
        raw_read: { ms: Math.round(raw.ms), records_per_s: Math.round(rate(raw)) },
        export_hledger: { ms: Math.round(file.ms), records_per_s: Math.round(rate(file)) },
        ratio_to_raw_read: Number(ratio.toFixed(3)),
        target: 0.5,
        met: ratio >= 0.5,
        load_1min: { before: loadBefore, after: load1() },
      }),
    );
  } finally {
    await db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function once(work: () => Promise<number>): Promise<{ ms: number; records: number }> {
  const started = performance.now();
  const records = await work();
  return { ms: performance.now() - started, records };
}

for (const ready of sizes) await measure(ready);
