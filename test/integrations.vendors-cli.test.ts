import { randomBytes } from 'node:crypto';
import { expect, it } from 'vitest';
import { describeEachDialect } from './support/context.js';
import { errorBody, ISO_MICROS } from './support/expect.js';
import { INTEGRATION } from './support/integrations.js';
import { svc } from './support/processes.js';

const lines = (stdout: string) =>
  stdout
    .trim()
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l));

describeEachDialect(
  'svc vendors',
  (t) => {
    const env = () => ({ DATABASE_URL: t.ctx.database.url });
    const newId = () => `ERP_${randomBytes(4).toString('hex').toUpperCase()}`;

    it('creates a vendor that integrations can then name; lists, disables and enables it', async () => {
      const vendor = newId();
      const api = await t.ctx.as(['accounting.integration.write']);
      const before = await api.post(INTEGRATION, { vendor, vendor_account_id: 'a' });
      expect([before.status, before.body.details]).toEqual([
        400,
        { errors: [{ path: '/vendor', message: 'names no vendor of this service' }] },
      ]);

      const created = await svc(['vendors', 'create', '--vendor', vendor, '--name', 'Acme ERP'], env());
      expect(created.code, created.stderr).toBe(0);
      expect(created.stderr).toMatch(/^svc: database (sqlite|postgres)[^\n]*\n$/);
      const shown = {
        vendor,
        name: 'Acme ERP',
        status: 'ACTIVE',
        created_at: expect.stringMatching(ISO_MICROS),
        disabled_at: null,
      };
      expect(JSON.parse(created.stdout)).toEqual(shown);
      expect((await api.post(INTEGRATION, { vendor, vendor_account_id: 'a' })).status).toBe(200);

      const listed = lines((await svc(['vendors', 'list'], env())).stdout);
      expect(listed).toContainEqual(shown);

      const disabled = await svc(['vendors', 'disable', vendor], env());
      expect(disabled.code).toBe(0);
      expect(JSON.parse(disabled.stdout)).toEqual({
        ...shown,
        status: 'DISABLED',
        disabled_at: expect.stringMatching(ISO_MICROS),
      });
      const other = await t.ctx.as(['accounting.integration.write']);
      const refused = await other.post(INTEGRATION, { vendor, vendor_account_id: 'a' });
      expect(refused.status).toBe(400);
      expect(refused.body).toEqual(
        errorBody('INVALID_REQUEST', {
          message: `Vendor ${vendor} is disabled: no integration with it can be created or reactivated.`,
          details: { errors: [{ path: '/vendor', message: `names disabled vendor ${vendor}` }] },
        }),
      );
      // Disabling twice keeps the first time.
      const again = await svc(['vendors', 'disable', vendor], env());
      expect(JSON.parse(again.stdout).disabled_at).toBe(JSON.parse(disabled.stdout).disabled_at);

      const enabled = await svc(['vendors', 'enable', vendor], env());
      expect(JSON.parse(enabled.stdout)).toEqual(shown);
      expect((await other.post(INTEGRATION, { vendor, vendor_account_id: 'a' })).status).toBe(200);

      // Without --name, the vendor id names it.
      const bare = newId();
      expect(JSON.parse((await svc(['vendors', 'create', '--vendor', bare], env())).stdout).name).toBe(bare);
    });

    it('names the one problem of a mistaken call and exits 2', async () => {
      const vendor = newId();
      expect((await svc(['vendors', 'create', '--vendor', vendor], env())).code).toBe(0);
      const cases: [string[], string][] = [
        [['vendors', 'create'], 'svc: --vendor is required\n'],
        [['vendors', 'create', '--vendor', vendor], `svc: Vendor ${vendor} exists already.\n`],
        [
          ['vendors', 'create', '--vendor', 'bad id'],
          'svc: The request is invalid: /vendor must be 1 to 64 characters: letters, digits, "_", "-", "." (not first).\n',
        ],
        [['vendors', 'disable', 'ERP_NOBODY'], 'svc: Vendor ERP_NOBODY not found.\n'],
        [['vendors', 'enable'], 'svc: give exactly one vendor id\n'],
        [['vendors', 'rename'], 'svc: unknown command: vendors rename\n'],
      ];
      for (const [args, message] of cases) {
        const res = await svc(args, env());
        expect({ args, code: res.code }).toEqual({ args, code: 2 });
        expect(res.stderr.replace(/^svc: database [^\n]*\n/, '')).toBe(
          `${message}Run 'svc ${args[1] === 'rename' ? 'vendors' : `vendors ${args[1]}`} --help' for usage.\n`,
        );
      }
      const help = await svc(['vendors', '--help'], env());
      expect(help.code).toBe(0);
      for (const sub of ['create', 'list', 'disable', 'enable']) expect(help.stdout).toContain(`svc vendors ${sub}`);
    });
  },
  {},
  // The CLI runs the services the server runs, tested per dialect through HTTP: SQLite alone here.
  { only: 'sqlite' },
);
