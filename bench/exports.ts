/**
 * `npx tsx bench/exports.ts [--records N]` (SQLite): the file export of issue 33 against the raw read of the same
 * records. Seeds a demo company (`svc seed`: READY_FOR_EXPORT records coded in full) into a temporary database,
 * then times, best of three, (a) the raw read: the export's own query of every READY_FOR_EXPORT record with its
 * details, and (b) the export: that read, the mapping and the hledger journal written as text. The target: the
 * export runs at least at 50% of the raw read's speed (records per second).
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

const { values } = parseArgs({ options: { records: { type: 'string', default: '100000' } } });
const ready = Number(values.records);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-exports-'));
const db = openDatabase({ dialect: 'sqlite', path: path.join(dir, 'bench.sqlite') }, { poolSize: 1 });
const tenant = { accountId: 'acct_bench_exports' };
const hledger: ExportInput = { format: 'hledger' };

async function best(work: () => Promise<number>): Promise<{ ms: number; records: number }> {
  let fastest = Infinity;
  let records = 0;
  for (let i = 0; i < 3; i++) {
    const started = performance.now();
    records = await work();
    fastest = Math.min(fastest, performance.now() - started);
  }
  return { ms: fastest, records };
}

try {
  await migrateToLatest(db);
  // About a quarter of the seed's history is READY_FOR_EXPORT: ask for four times as many records.
  await seed(db, ['--account', tenant.accountId, '--records', String(ready * 4)], () => {});
  const raw = await best(async () => {
    const { rows } = await db.read((ex) =>
      exportSelectionService.rows(ex, tenant, { kind: 'ready', from: null, to: null }),
    );
    return rows.length;
  });
  const file = await best(async () => {
    const out = await db.read((ex) => exportsService.file(ex, tenant, hledger, '2026-01-01'));
    return out.recordIds.length;
  });
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
    }),
  );
} finally {
  await db.close();
  fs.rmSync(dir, { recursive: true, force: true });
}
