import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from './processes.js';

/** test/fixtures/upgrades/<commit>/: a past release's database and answers (scripts/make-upgrade-fixture.mjs). */
export const FIXTURES = path.join(ROOT, 'test', 'fixtures', 'upgrades');

export interface UpgradeManifest {
  commit: string;
  committed_at: string;
  subject: string;
  script: string;
  script_version: number;
  migrations: string[];
  account: string;
  client: { client_id: string; client_secret: string; account_id: string; scopes: string[] };
}

export interface SavedAnswer {
  method: 'GET';
  path: string;
  query: Record<string, string>;
  status: number;
  body: unknown;
}

/** A CLI command the release ran after its server's writes, and the JSON lines it printed. */
export interface SavedCli {
  args: string[];
  lines: unknown[];
}

export interface UpgradeFixture {
  name: string;
  dir: string;
  database: string;
  manifest: UpgradeManifest;
  answers: SavedAnswer[];
  cli: SavedCli[];
}

const readJson = (file: string) => JSON.parse(fs.readFileSync(file, 'utf8'));

/** Every fixture, oldest release first. */
export function upgradeFixtures(): UpgradeFixture[] {
  return fs
    .readdirSync(FIXTURES, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => {
      const dir = path.join(FIXTURES, d.name);
      return {
        name: d.name,
        dir,
        database: path.join(dir, 'database.sqlite'),
        manifest: readJson(path.join(dir, 'manifest.json')) as UpgradeManifest,
        answers: readJson(path.join(dir, 'answers.json')) as SavedAnswer[],
        cli: readJson(path.join(dir, 'cli.json')) as SavedCli[],
      };
    })
    .sort((a, b) => a.manifest.committed_at.localeCompare(b.manifest.committed_at));
}

/** A path with its ids replaced, so that one list of added members serves every record, field and release. */
export const routeOf = (p: string) =>
  p.replace(/\/(extended_field|accr|efo)_[0-9a-z]+/g, (_m, kind: string) => `/{${kind}}`);

const isObject = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);

/**
 * `now` without the members `old` lacks (at any depth, arrays matched by position), and where those were
 * (`$.items[].line_items[].amortization`), so that `expect(stripped).toEqual(old)` holds every other member to
 * its old value and a test can list what may be added.
 */
export function withoutAdded(now: unknown, old: unknown, at = '$', added = new Set<string>()): unknown {
  if (Array.isArray(now) && Array.isArray(old)) return now.map((x, i) => withoutAdded(x, old[i], `${at}[]`, added));
  if (isObject(now) && isObject(old)) {
    const kept: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(now)) {
      if (key in old) kept[key] = withoutAdded(value, old[key], `${at}.${key}`, added);
      else added.add(`${at}.${key}`);
    }
    return kept;
  }
  return now;
}
