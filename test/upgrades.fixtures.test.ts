import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { ROOT } from './support/processes.js';
import { upgradeFixtures } from './support/upgrades.js';

/**
 * The upgrade fixtures are generated files (scripts/make-upgrade-fixture.mjs): each is proven here to match its
 * source, cheaply, with no server: the commit it names is in this branch's history, its database holds exactly
 * that commit's migrations, today's files of those migrations are that commit's (so PostgreSQL, migrated by today's
 * code to the release's schema in test/upgrades.test.ts, gets the release's schema), and its answers are of the
 * rows its database holds. Needs the repository's history (a full clone, not a shallow one).
 */
function git(args: string[]): { code: number | null; out: string } {
  const res = spawnSync('git', args, { cwd: ROOT, encoding: 'utf8' });
  return { code: res.status, out: res.stdout };
}

/** A migration file as it was before it exported its plan (the one change made to migrations that have run). */
const withoutPlan = (text: string) =>
  text
    .replace(/\n\nexport const plan: MigrationPlan = \{[\s\S]*?\n\};\n$/, '\n')
    .replace(', type MigrationPlan }', ' }')
    .replace("import type { MigrationPlan } from './helpers.js';\n", '');

const SCRIPT = fs.readFileSync(path.join(ROOT, 'scripts', 'make-upgrade-fixture.mjs'), 'utf8');
const SCRIPT_VERSION = Number(/export const SCRIPT_VERSION = (\d+);/.exec(SCRIPT)?.[1]);

describe('upgrade fixtures match their sources', () => {
  const fixtures = upgradeFixtures();

  it('there are fixtures of at least three releases, each named by its commit', () => {
    expect(fixtures.length).toBeGreaterThanOrEqual(3);
    for (const f of fixtures) expect([f.name, f.manifest.commit.slice(0, 7)]).toEqual([f.name, f.name]);
  });

  for (const fixture of fixtures) {
    const { manifest } = fixture;
    describe(fixture.name, () => {
      it("names a commit of this branch's history, made by this script's version", () => {
        expect(git(['cat-file', '-t', manifest.commit])).toEqual({ code: 0, out: 'commit\n' });
        expect(git(['merge-base', '--is-ancestor', manifest.commit, 'HEAD']).code).toBe(0);
        expect(git(['show', '-s', '--format=%cI%n%s', manifest.commit]).out).toBe(
          `${manifest.committed_at}\n${manifest.subject}\n`,
        );
        expect([manifest.script, manifest.script_version]).toEqual([
          'scripts/make-upgrade-fixture.mjs',
          SCRIPT_VERSION,
        ]);
      });

      it("holds exactly the commit's migrations, whose files today are the commit's", () => {
        const files = git(['ls-tree', '--name-only', manifest.commit, 'src/db/migrations/'])
          .out.trim()
          .split('\n')
          .map((f) => path.basename(f, '.ts'))
          .filter((name) => name !== 'helpers');
        expect(manifest.migrations).toEqual(files);
        const db = new Database(fixture.database, { readonly: true });
        try {
          const applied = db.prepare('select name from kysely_migration order by name').all() as { name: string }[];
          expect(applied.map((r) => r.name)).toEqual(files);
        } finally {
          db.close();
        }
        for (const name of files) {
          const then = git(['show', `${manifest.commit}:src/db/migrations/${name}.ts`]).out;
          const now = fs.readFileSync(path.join(ROOT, 'src', 'db', 'migrations', `${name}.ts`), 'utf8');
          expect([name, withoutPlan(now)]).toEqual([name, then]);
        }
      });

      it("answers of the rows its database holds: the account's fields and records, by id", () => {
        const db = new Database(fixture.database, { readonly: true });
        try {
          const of = (sql: string) =>
            (db.prepare(sql).all(manifest.account) as { id: string }[]).map((r) => r.id).sort();
          const answered = (prefix: string) =>
            fixture.answers
              .map((a) => new RegExp(`^${prefix}/([^/]+)$`).exec(a.path)?.[1])
              .filter((id): id is string => id !== undefined);
          expect([...new Set(answered('/v1/fields'))].sort()).toEqual(
            of('select svc_id as id from fields where account_id = ?'),
          );
          expect([...new Set(answered('/v3/accounting/records'))].sort()).toEqual(
            of('select id from accounting_records where account_id = ?'),
          );
          const clients = db.prepare('select client_id, account_id from oauth_clients').all();
          expect(clients).toEqual([{ client_id: manifest.client.client_id, account_id: manifest.account }]);
        } finally {
          db.close();
        }
      });
    });
  }
});
