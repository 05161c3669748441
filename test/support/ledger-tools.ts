import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * Debian's hledger and Beancount, run for real on exported files. Missing tools fail the test that needs them:
 * CI installs the packages hledger and beancount.
 */
function run(tool: string, args: string[]): string {
  try {
    return execFileSync(tool, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (error) {
    const failure = error as NodeJS.ErrnoException & { stdout?: string; stderr?: string; status?: number };
    if (failure.code === 'ENOENT') {
      throw new Error(`${tool} is not installed: install the Debian packages hledger and beancount`, { cause: error });
    }
    throw new Error(
      `${tool} ${args.join(' ')} exited ${failure.status}:\n${failure.stdout ?? ''}${failure.stderr ?? ''}`,
      {
        cause: error,
      },
    );
  }
}

export function withFile<T>(name: string, text: string, work: (file: string) => T): T {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-exports-'));
  try {
    const file = path.join(dir, name);
    fs.writeFileSync(file, text);
    return work(file);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const csvRows = (text: string): string[][] =>
  text
    .trim()
    .split('\n')
    .slice(1)
    .map((row) => [...row.matchAll(/"((?:[^"]|"")*)"|([^,]+)/g)].map((m) => (m[1] ?? m[2] ?? '').trim()));

/** `hledger check --strict ordereddates` (every account and commodity declared, dates in order) must pass. */
export const hledgerCheck = (file: string): string => run('hledger', ['-f', file, 'check', '--strict', 'ordereddates']);

/** Balances per account and commodity: [account, commodity, amount] rows. */
export const hledgerBalances = (file: string): string[][] =>
  csvRows(run('hledger', ['-f', file, 'balance', '-O', 'csv', '--no-total', '--layout=bare', '-N']));

export const beanCheck = (file: string): string => run('bean-check', [file]);

export const beanBalances = (file: string): string[][] =>
  csvRows(
    run('bean-query', [
      '-f',
      'csv',
      file,
      'select account, currency, sum(number) as total group by account, currency order by account, currency',
    ]),
  );
