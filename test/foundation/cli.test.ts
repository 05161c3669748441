import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { createTestDatabase } from '../support/databases.js';
import { describeEachDialect } from '../support/context.js';
import { spawn } from 'node:child_process';
import { collect, ROOT, svc, tempDir } from '../support/processes.js';
import { until } from '../support/wait.js';

const USAGE_START = 'Usage: svc <command>';
/** What every command that opens the database says first on stderr. */
const databaseLine = (url: string) =>
  `svc: database ${url.startsWith('postgres') ? url : `sqlite:${path.resolve(url.replace(/^sqlite:/, ''))}`}\n`;

describeEachDialect(
  'the svc CLI',
  (t) => {
    const env = () => ({ DATABASE_URL: t.ctx.database.url });

    it('creates a client whose printed credentials work at the token endpoint, lists and revokes it', async () => {
      const account = `cli_${Date.now().toString(36)}`;
      const created = await svc(
        ['clients', 'create', '--account', account, '--scopes', 'fields.read fields.write'],
        env(),
      );
      expect([created.code, created.stderr]).toEqual([0, databaseLine(env().DATABASE_URL)]);
      const creds = JSON.parse(created.stdout);
      expect(creds).toEqual({
        client_id: expect.stringMatching(/^cli_[0-9a-z]{26}$/),
        client_secret: expect.stringMatching(/^svc_cs_[A-Za-z0-9_-]{43}$/),
        account_id: account,
        name: '',
        scopes: ['fields.read', 'fields.write'],
      });
      expect(created.stdout.trim().split('\n')).toHaveLength(1);
      const row = await t.ctx.db.direct
        .selectFrom('oauth_clients')
        .selectAll()
        .where('client_id', '=', creds.client_id)
        .executeTakeFirstOrThrow();
      expect(row.secret_hash).not.toContain(creds.client_secret);
      expect(JSON.stringify(row)).not.toContain(creds.client_secret);

      const tokenRes = await t.ctx.app.inject({
        method: 'POST',
        url: '/oauth2/token',
        payload: { grant_type: 'client_credentials', client_id: creds.client_id, client_secret: creds.client_secret },
      });
      expect(tokenRes.statusCode).toBe(200);
      const bearer = { authorization: `Bearer ${tokenRes.json().access_token}` };
      expect((await t.ctx.app.inject({ method: 'GET', url: '/v1/fields', headers: bearer })).statusCode).toBe(200);

      // comma-separated scopes, same account: a second client
      const second = await svc(
        ['clients', 'create', '--account', account, '--scopes', 'fields.read,accounting.record.read'],
        env(),
      );
      expect(JSON.parse(second.stdout).scopes).toEqual(['fields.read', 'accounting.record.read']);

      const listed = await svc(['clients', 'list', '--account', account], env());
      expect(listed.code).toBe(0);
      const lines = listed.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(lines.map((l) => l.client_id).sort()).toEqual(
        [creds.client_id, JSON.parse(second.stdout).client_id].sort(),
      );
      expect(lines.find((l) => l.client_id === creds.client_id)).toEqual({
        client_id: creds.client_id,
        account_id: account,
        name: '',
        scopes: ['fields.read', 'fields.write'],
        created_at: expect.stringMatching(/Z$/),
        // The token asked for above is its last use.
        last_used_at: expect.stringMatching(/Z$/),
        revoked_at: null,
      });
      expect(listed.stdout).not.toContain('svc_cs_');

      const revoked = await svc(['clients', 'revoke', creds.client_id], env());
      expect([revoked.code, JSON.parse(revoked.stdout)]).toEqual([0, { client_id: creds.client_id, revoked: true }]);
      // PostgreSQL: the command is another process, whose revocation the server's grant cache hears by notification.
      const after = await until('the revocation noticed', async () => {
        const res = await t.ctx.app.inject({ method: 'GET', url: '/v1/fields', headers: bearer });
        return (t.dialect === 'sqlite' || res.statusCode === 401) && res;
      });
      expect(after.statusCode).toBe(401);
      expect(after.headers['www-authenticate']).toContain('error="invalid_token"');
      const again = await t.ctx.app.inject({
        method: 'POST',
        url: '/oauth2/token',
        payload: { grant_type: 'client_credentials', client_id: creds.client_id, client_secret: creds.client_secret },
      });
      expect([again.statusCode, again.json().error]).toEqual([401, 'invalid_client']);
      const twice = await svc(['clients', 'revoke', creds.client_id], env());
      expect(twice.code).toBe(2);
      expect(twice.stderr).toContain(`svc: no active client ${creds.client_id}`);
    });

    it('exits 2 with a message on bad scopes, a missing --account and unknown commands, creating nothing', async () => {
      const before = await t.ctx.db.direct.selectFrom('oauth_clients').select('client_id').execute();
      const cases: [string[], string][] = [
        [
          ['clients', 'create', '--account', 'acme', '--scopes', 'fields.read root'],
          'svc: --scopes: unknown scope(s): root',
        ],
        [['clients', 'create', '--account', 'acme', '--scopes', ' , '], 'svc: --scopes: give at least one scope'],
        [['clients', 'create', '--scopes', 'fields.read'], 'svc: --account is required'],
        [['clients', 'create', '--account', 'acme'], 'svc: --scopes is required'],
        [
          ['clients', 'create', '--account', 'bad name!', '--scopes', 'fields.read'],
          'svc: --account: 1 to 64 characters',
        ],
        [
          ['clients', 'create', '--account', 'acme', '--scopes', 'fields.read', '--colour', 'red'],
          "svc: Unknown option '--colour'",
        ],
        [['clients', 'fly'], 'svc: unknown command: clients fly'],
        [['launch'], 'svc: unknown command: launch'],
      ];
      for (const [args, message] of cases) {
        const result = await svc(args, env());
        expect({ args, code: result.code, stdout: result.stdout }).toEqual({ args, code: 2, stdout: '' });
        // The one problem, and where help is: not the whole usage.
        const lines = result.stderr.split('\n').filter((l) => !l.startsWith('svc: database '));
        expect(lines[0]!.startsWith(message)).toBe(true);
        const pointer =
          args[0] === 'launch' ? 'svc --help' : args[1] === 'fly' ? 'svc clients --help' : 'svc clients create --help';
        expect(lines.slice(1)).toEqual([`Run '${pointer}' for usage.`, '']);
        expect(result.stderr).not.toContain(USAGE_START);
      }
      expect(await t.ctx.db.direct.selectFrom('oauth_clients').select('client_id').execute()).toEqual(before);
    });

    it('prints help for every command and subcommand on --help, with defaults, and exits 0', async () => {
      const cases: [string[], string[]][] = [
        [
          ['--help'],
          [USAGE_START, 'svc clients create', 'svc users create', 'svc seed', 'svc poll', 'default: data/svc.sqlite'],
        ],
        [
          ['help', 'clients'],
          ['svc clients create', 'svc clients list', 'svc clients revoke'],
        ],
        [
          ['clients', 'create', '--help'],
          ['svc clients create --account', '--scopes    space- or comma-separated'],
        ],
        [
          ['users', '--help'],
          ['svc users create', 'svc users reset-password'],
        ],
        [
          ['seed', '-h'],
          ['--records         records to write (default 1000)', '--into-existing'],
        ],
        [['poll', '--help'], ['--interval    seconds between polls when not --once (default 3600)']],
        [['report', '--help'], ['--in   where results come from (default -: standard input)']],
        [['migrate', '--help'], ['svc migrate']],
      ];
      for (const [args, texts] of cases) {
        const result = await svc(args, env());
        expect({ args, code: result.code, stderr: result.stderr }).toEqual({ args, code: 0, stderr: '' });
        for (const text of texts) expect(result.stdout, args.join(' ')).toContain(text);
      }
      const bare = await svc([], env());
      expect([bare.code, bare.stdout]).toEqual([2, '']);
      expect(bare.stderr).toContain(USAGE_START);
      const { version } = JSON.parse(fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
      for (const args of [['--version'], ['version']]) {
        expect(await svc(args, env())).toMatchObject({ code: 0, stdout: `${version}\n`, stderr: '' });
      }
    });

    it('finds the same default database from any folder, and names the database it opens', async () => {
      const elsewhere = tempDir('svc-cwd-');
      const script = `import('${path.join(ROOT, 'dist/config.js')}').then((m) => console.log(m.loadConfig({}).database.path))`;
      const printed = await collect(spawn(process.execPath, ['-e', script], { cwd: elsewhere }));
      expect(printed.stdout.trim()).toBe(path.join(ROOT, 'data', 'svc.sqlite'));
      const listed = await svc(['clients', 'list', '--account', 'nobody'], env());
      expect([listed.code, listed.stdout, listed.stderr]).toEqual([0, '', databaseLine(env().DATABASE_URL)]);
      if (t.dialect === 'postgres') {
        const withPassword = env().DATABASE_URL.replace('postgres://postgres@', 'postgres://postgres:hunter2@');
        const masked = await svc(['clients', 'list', '--account', 'nobody'], { DATABASE_URL: withPassword });
        expect(masked.stderr).toBe(`svc: database ${withPassword.replace('hunter2', '***')}\n`);
      }
    });

    it('migrates a new database once, then has nothing to apply', async () => {
      const fresh = await createTestDatabase(t.dialect);
      try {
        const first = await svc(['migrate'], { DATABASE_URL: fresh.url });
        expect([first.code, first.stderr]).toEqual([0, databaseLine(fresh.url)]);
        const applied: string[] = JSON.parse(first.stdout).applied;
        expect(applied[0]).toBe('0001_foundation');
        expect(applied).toEqual([...applied].sort());
        const second = await svc(['migrate'], { DATABASE_URL: fresh.url });
        expect([second.code, JSON.parse(second.stdout)]).toEqual([0, { applied: [] }]);
        const bad = await svc(['migrate'], { DATABASE_URL: 'mysql://x' });
        expect(bad.code).toBe(2);
        expect(bad.stderr).toContain('DATABASE_URL: must start with sqlite: or postgres://');
      } finally {
        await fresh.drop();
      }
    });
  },
  {},
  // The CLI runs the services the server runs, tested per dialect through HTTP: SQLite alone here.
  { only: 'sqlite' },
);
