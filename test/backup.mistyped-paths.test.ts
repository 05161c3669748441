import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { createTestDatabase } from './support/databases.js';
import { eachDialect } from './support/dialects.js';
import { svc, tempDir } from './support/processes.js';

/**
 * A mistyped SQLite path (issue 35's operator-flow audit): opening a file that is not there makes a new, empty
 * database, so every command that only makes sense on an existing one refuses it first, as `svc backup` does, and
 * makes nothing. A SQLite path is the subject: PostgreSQL never makes a database on connect.
 */
eachDialect(
  'a mistyped database path or folder',
  () => {
    const missing = (dir: string) => path.join(dir, 'typo', 'svc.sqlite');
    const refusal = (file: string) => `svc: the database file ${file} does not exist\n`;

    it('svc copy refuses a source that is not there, and makes neither it nor the target', async () => {
      const dir = tempDir('svc-mistyped-');
      const [from, to] = [missing(dir), path.join(dir, 'c2', 'svc.sqlite')];
      const res = await svc(['copy', '--from', `sqlite:${from}`, '--to', `sqlite:${to}`], {});
      expect([res.code, res.stdout, res.stderr]).toEqual([
        1,
        '',
        `svc: copying sqlite:${from} into sqlite:${to}\n${refusal(from)}`,
      ]);
      expect(fs.readdirSync(dir)).toEqual([]);
    });

    it('a failed svc copy removes the target it made (file or folder), and keeps a target that was there', async () => {
      const dir = tempDir('svc-mistyped-');
      // There, but not a svc database: an empty file is an empty SQLite database.
      const from = path.join(dir, 'empty.sqlite');
      fs.writeFileSync(from, '');
      const kept = path.join(dir, 'kept.sqlite');
      fs.writeFileSync(kept, '');
      for (const to of [path.join(dir, 'new.sqlite'), path.join(dir, 'c2', 'deeper', 'svc.sqlite'), kept]) {
        const res = await svc(['copy', '--from', `sqlite:${from}`, '--to', `sqlite:${to}`], {});
        expect([res.code, res.stderr.split('\n')[1]]).toEqual([1, `svc: sqlite:${from} is not a svc database`]);
      }
      expect(fs.readdirSync(dir).sort()).toEqual(['empty.sqlite', 'kept.sqlite']);
    });

    it('svc migrate --plan refuses a database that is not there; svc migrate makes it (a first start)', async () => {
      const dir = tempDir('svc-mistyped-');
      const file = missing(dir);
      const plan = await svc(['migrate', '--plan'], { DATABASE_URL: `sqlite:${file}` });
      expect([plan.code, plan.stdout, plan.stderr]).toEqual([1, '', `svc: database sqlite:${file}\n${refusal(file)}`]);
      expect(fs.readdirSync(dir)).toEqual([]);
      const migrated = await svc(['migrate'], { DATABASE_URL: `sqlite:${file}` });
      expect(migrated.code).toBe(0);
      expect(fs.existsSync(file)).toBe(true);
    });

    it('svc account export and delete refuse a database that is not there', async () => {
      const dir = tempDir('svc-mistyped-');
      const file = missing(dir);
      for (const args of [
        ['account', 'export', '--account', 'acme', '--out', path.join(dir, 'acme')],
        ['account', 'delete', '--account', 'acme', '--confirm', 'acme'],
      ]) {
        const res = await svc(args, { DATABASE_URL: `sqlite:${file}` });
        expect([res.code, res.stdout, res.stderr]).toEqual([1, '', `svc: database sqlite:${file}\n${refusal(file)}`]);
        expect(fs.readdirSync(dir)).toEqual([]);
      }
    });

    it('every command that lists or changes what is there refuses a database that is not there', async () => {
      const dir = tempDir('svc-mistyped-');
      const file = missing(dir);
      const account = ['--account', 'acme'];
      const commands = [
        ['clients', 'list'],
        ['clients', 'revoke', 'cl_x'],
        ['clients', 'rotate-secret', 'cl_x'],
        ['clients', 'scopes', 'cl_x', '--scopes', 'fields.read'],
        ['clients', 'rename', 'cl_x', '--name', 'ERP'],
        ['users', 'list'],
        ['users', 'disable', 'usr_x'],
        ['users', 'reset-password', 'usr_x'],
        ['users', 'reset-mfa', 'usr_x'],
        ['vendors', 'list'],
        ['vendors', 'disable', 'acme_erp'],
        ['vendors', 'enable', 'acme_erp'],
        ['apps', 'list'],
        ['apps', 'disable', 'app_x'],
        ['apps', 'enable', 'app_x'],
        ['apps', 'rotate-secret', 'app_x'],
        ['webhooks', 'list', ...account],
        ['webhooks', 'test', 'wh_x', ...account],
        ['webhooks', 'disable', 'wh_x', ...account],
        ['webhooks', 'enable', 'wh_x', ...account],
        ['rules', 'list', ...account],
        ['rules', 'apply', ...account],
        ['rules', 'apply', '--dry-run', ...account],
      ];
      const results = await Promise.all(commands.map((args) => svc(args, { DATABASE_URL: `sqlite:${file}` })));
      expect(results.map((res, i) => [commands[i]!.join(' '), res.code, res.stdout, res.stderr])).toEqual(
        commands.map((args) => [args.join(' '), 1, '', `svc: database sqlite:${file}\n${refusal(file)}`]),
      );
      expect(fs.readdirSync(dir)).toEqual([]);
    });

    it('the commands a first start begins with still make a new database', async () => {
      const dir = tempDir('svc-mistyped-');
      const rule = {
        name: 'Taxis',
        conditions: { memo_contains: 'taxi' },
        actions: { field_values: [], memo: 'Taxi' },
      };
      const commands = [
        ['clients', 'create', '--account', 'acme', '--scopes', 'fields.read'],
        ['users', 'create', '--account', 'acme', '--email', 'ada@example.com', '--role', 'ACCOUNT_ADMIN'],
        ['vendors', 'create', '--vendor', 'acme_erp'],
        ['apps', 'create', '--name', 'Acme', '--redirect-uri', 'https://acme.example/cb'],
        ['rules', 'create', '--account', 'acme', '--json', JSON.stringify(rule)],
        ['seed', '--account', 'acme', '--records', '1', '--values', '1'],
      ];
      const files = commands.map((_, i) => path.join(dir, `new-${i}`, 'svc.sqlite'));
      const results = await Promise.all(commands.map((args, i) => svc(args, { DATABASE_URL: `sqlite:${files[i]}` })));
      expect(results.map((res, i) => [commands[i]!.join(' '), res.code, fs.existsSync(files[i]!)])).toEqual(
        commands.map((args) => [args.join(' '), 0, true]),
      );
    });

    it('svc account export refuses an --out whose folder is not there, in the words of svc backup', async () => {
      const database = await createTestDatabase('sqlite', { migrated: true });
      try {
        const env = { DATABASE_URL: database.url };
        expect((await svc(['migrate'], env)).code).toBe(0);
        const dir = tempDir('svc-mistyped-');
        const folder = path.join(dir, 'nope', 'x');
        const lines = (res: { stderr: string }) => res.stderr.split('\n').slice(1);
        const exported = await svc(['account', 'export', '--account', 'acme', '--out', path.join(folder, 'acme')], env);
        const backedUp = await svc(['backup', '--out', path.join(folder, 'acme')], env);
        expect([exported.code, exported.stdout, lines(exported)]).toEqual([
          1,
          '',
          [`svc: the folder ${folder} does not exist`, ''],
        ]);
        expect(lines(backedUp)).toEqual(lines(exported));
        expect(fs.readdirSync(dir)).toEqual([]);
      } finally {
        await database.drop();
      }
    });
  },
  { only: 'sqlite' },
);
