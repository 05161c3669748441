import fs from 'node:fs';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { MIGRATIONS } from '../src/db/migrate.js';
import { createTestDatabase, type TestDatabase } from './support/databases.js';
import { eachDialect } from './support/dialects.js';
import { startServer, svc, tempDir, type RunningServer } from './support/processes.js';
import { fetchToken, HttpApi } from './support/reliability.js';
import { routeOf, upgradeFixtures, withoutAdded, type UpgradeFixture } from './support/upgrades.js';

/**
 * The members today's answers carry that a past release's did not, by route: the only differences an upgrade
 * may show (docs/operations.md, "Upgrades"). Anything else that differs, a member gone or a value changed, fails;
 * so does a member added here unlisted.
 */
const ADDED: Record<string, string[]> = {
  // Since 9d197f0: what a record's balancing line stands for (its side, and the kind of account).
  '/v3/accounting/records': ['$.items[].balancing_account_type', '$.items[].balancing_line_type'],
  '/v3/accounting/records/{accr}': ['$.balancing_account_type', '$.balancing_line_type'],
  '/internal/v1/accounting/records': ['$.items[].balancing_account_type', '$.items[].balancing_line_type'],
  // Since d22c65a (one pagination convention): a history page says whether another follows.
  '/internal/v1/accounting/records/{accr}/history': ['$.has_next_page'],
  // Since the record for review carries its coding suggestions (issue 30).
  '/internal/v1/accounting/records/{accr}': ['$.suggestions', '$.coding'],
};

/** The same for the JSON lines of the CLI's listings, by command. */
const ADDED_CLI: Record<string, string[]> = {
  // Since two-step sign-in (0013): whether the user has set up a second factor.
  'users list': ['$[].mfa_enrolled'],
  // Since 0029: an API client's name ('' for clients made before) and when it last obtained a token.
  'clients list': ['$[].last_used_at', '$[].name'],
};

/** The bill the release left in REVIEW with one of its two lines coded, as the release answered it. */
function billInReview(fixture: UpgradeFixture): any {
  const bill = fixture.answers.find(
    (a) => /^\/v3\/accounting\/records\/accr_/.test(a.path) && (a.body as any).type === 'BILL_EXPENSE',
  );
  return bill!.body;
}

/** Today's svc over the fixture's data: SQLite migrates a copy of the file, PostgreSQL gets it by `svc copy`. */
async function upgraded(
  dialect: 'sqlite' | 'postgres',
  fixture: UpgradeFixture,
  cleanup: (() => Promise<void>)[],
): Promise<string> {
  const later = Object.keys(MIGRATIONS).filter((name) => !fixture.manifest.migrations.includes(name));
  const dir = tempDir(`svc-upgrade-${fixture.name}-`);
  cleanup.push(async () => fs.rmSync(dir, { recursive: true, force: true }));
  const copy = path.join(dir, 'release.sqlite');
  fs.copyFileSync(fixture.database, copy);
  if (dialect === 'sqlite') {
    const ran = await svc(['migrate'], { DATABASE_URL: `sqlite:${copy}` });
    expect([ran.code, ran.stderr, JSON.parse(ran.stdout)]).toEqual([0, expect.any(String), { applied: later }]);
    return `sqlite:${copy}`;
  }
  const target: TestDatabase = await createTestDatabase('postgres');
  cleanup.push(() => target.drop());
  // Migrated by today's code to the release's migrations (the same files, test/upgrades.fixtures.test.ts checks),
  // the release's rows copied, then today's later migrations run over them.
  const copied = await svc(['copy', '--from', `sqlite:${copy}`, '--to', target.url], {});
  expect([copied.code, copied.stderr]).toEqual([0, expect.any(String)]);
  const report = JSON.parse(copied.stdout);
  // The copy migrates the empty target up to the release's last migration, so one the release lacked below it
  // (1bf87fd had 0027 and not 0025) is run then, before the rows are copied; the report names it with the later ones.
  const last = fixture.manifest.migrations.at(-1)!;
  expect([report.schema_version, report.migrations_run]).toEqual([last, later]);
  return target.url;
}

eachDialect('upgrades from earlier releases', (dialect) => {
  const cleanup: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const step of cleanup.reverse()) await step();
  });

  for (const fixture of upgradeFixtures()) {
    it(`${fixture.name} (${fixture.manifest.migrations.at(-1)}): every answer the release gave, today, after today's migrations`, async () => {
      const url = await upgraded(dialect, fixture, cleanup);
      const server: RunningServer = await startServer({ DATABASE_URL: url, RATE_LIMIT_MAX: '0' });
      try {
        // The release's own API client still signs in: its stored secret survived the upgrade.
        const { client, account } = fixture.manifest;
        const api = new HttpApi(server.url, await fetchToken(server.url, client), account, client.client_id);
        const added = new Map<string, Set<string>>();
        for (const saved of fixture.answers) {
          const res = await api.get(saved.path, saved.query);
          const where = `${saved.path}?${new URLSearchParams(saved.query)}`;
          expect.soft([where, res.status]).toEqual([where, saved.status]);
          const route = routeOf(saved.path);
          const members = added.get(route) ?? new Set<string>();
          added.set(route, members);
          expect.soft([where, withoutAdded(res.body, saved.body, '$', members)]).toEqual([where, saved.body]);
        }
        for (const [route, members] of added) {
          const allowed = ADDED[route] ?? [];
          expect.soft([route, [...members].filter((m) => !allowed.includes(m)).sort()]).toEqual([route, []]);
        }
        for (const saved of fixture.cli) {
          const ran = await svc(saved.args, { DATABASE_URL: url });
          const command = saved.args.slice(0, 2).join(' ');
          const lines = ran.stdout
            .split('\n')
            .filter((line) => line !== '')
            .map((line) => JSON.parse(line));
          const members = new Set<string>();
          expect
            .soft([command, ran.code, withoutAdded(lines, saved.lines, '$', members)])
            .toEqual([command, 0, saved.lines]);
          const allowed = ADDED_CLI[command] ?? [];
          expect.soft([command, [...members].filter((m) => !allowed.includes(m)).sort()]).toEqual([command, []]);
        }
        // The release's rows are live, not only readable: its bill is coded, moved on and exported today.
        const bill = billInReview(fixture);
        const [, second] = bill.line_items;
        const coded = await api.post(`/internal/v1/accounting/records/${bill.id}/coding`, {
          version: bill.version,
          lines: [{ line_id: second.id, field_values: [{ field_remote_id: 'GL', remote_id: 'GL-6010' }] }],
        });
        expect([coded.status, coded.body.record?.line_items[1].accounting_field_values.length]).toEqual([200, 1]);
        const moved = await api.post(`/internal/v1/accounting/records/${bill.id}/review-status`, {
          review_status: 'READY_FOR_EXPORT',
        });
        expect([moved.status, moved.text]).toEqual([200, expect.any(String)]);
        const exported = await api.post('/v3/accounting/records/export-results', {
          results: [{ accounting_record_id: bill.id, success: { reference_id: 'erp_after_upgrade' } }],
        });
        expect(exported.status).toBe(200);
        const after = await api.get(`/v3/accounting/records/${bill.id}`);
        expect([after.body.review_status, after.body.version]).toEqual(['EXPORTED', bill.version + 3]);
      } finally {
        server.child.kill('SIGTERM');
        await server.exited;
      }
    });
  }
});
