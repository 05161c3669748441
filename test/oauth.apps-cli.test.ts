import { expect, it } from 'vitest';
import { describeEachDialect } from './support/context.js';
import { ISO_MICROS } from './support/expect.js';
import { approve, authorizeParams, pkce, REDIRECT, signedIn, tokenRequest } from './support/oauth.js';
import { svc } from './support/processes.js';

const lines = (stdout: string) =>
  stdout
    .trim()
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l));

describeEachDialect(
  'svc apps',
  (t) => {
    const env = () => ({ DATABASE_URL: t.ctx.database.url });

    it('registers a confidential app whose secret works once shown; lists, rotates, disables and enables it', async () => {
      const created = await svc(
        ['apps', 'create', '--name', 'Acme ERP', '--redirect-uri', REDIRECT, '--redirect-uri', 'http://127.0.0.1:9/cb'],
        env(),
      );
      expect(created.code, created.stderr).toBe(0);
      const app = JSON.parse(created.stdout);
      const shown = {
        app_id: expect.stringMatching(/^app_[0-9a-z]{26}$/),
        name: 'Acme ERP',
        client_type: 'confidential',
        redirect_uris: [REDIRECT, 'http://127.0.0.1:9/cb'],
        status: 'ACTIVE',
        created_at: expect.stringMatching(ISO_MICROS),
        disabled_at: null,
      };
      expect(app).toEqual({ ...shown, client_secret: expect.stringMatching(/^svc_as_/) });
      const listed = lines((await svc(['apps', 'list'], env())).stdout);
      expect(listed).toContainEqual({ ...shown, app_id: app.app_id });
      expect(JSON.stringify(listed)).not.toContain('svc_as_');

      // The secret buys tokens; after rotation only the new one does.
      const admin = await signedIn(t.ctx.app, t.ctx.db);
      const exchange = async (secret: string) => {
        const { verifier, challenge } = pkce();
        const code = await approve(admin, authorizeParams(app.app_id, challenge));
        const form = { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier };
        return tokenRequest(t.ctx.app, form, { id: app.app_id, secret });
      };
      expect((await exchange(app.client_secret)).status).toBe(200);
      const rotated = await svc(['apps', 'rotate-secret', app.app_id], env());
      expect(rotated.code, rotated.stderr).toBe(0);
      const fresh = JSON.parse(rotated.stdout).client_secret;
      expect(fresh).toMatch(/^svc_as_/);
      expect((await exchange(app.client_secret)).status).toBe(401);
      expect((await exchange(fresh)).status).toBe(200);

      const disabled = await svc(['apps', 'disable', app.app_id], env());
      expect(JSON.parse(disabled.stdout)).toEqual({
        ...shown,
        app_id: app.app_id,
        status: 'DISABLED',
        disabled_at: expect.stringMatching(ISO_MICROS),
      });
      const enabled = await svc(['apps', 'enable', app.app_id], env());
      expect(JSON.parse(enabled.stdout).status).toBe('ACTIVE');
      expect((await exchange(fresh)).status).toBe(200);
    });

    it('registers a public app without a secret, and refuses what a redirect URI must not be (exit 2, nothing stored)', async () => {
      const made = await svc(
        ['apps', 'create', '--name', 'Desk app', '--public', '--redirect-uri', 'http://[::1]/cb'],
        env(),
      );
      expect(made.code, made.stderr).toBe(0);
      expect(JSON.parse(made.stdout)).not.toHaveProperty('client_secret');
      expect(JSON.parse(made.stdout).client_type).toBe('public');
      const rotate = await svc(['apps', 'rotate-secret', JSON.parse(made.stdout).app_id], env());
      expect(rotate.code).toBe(2);
      expect(rotate.stderr).toContain('is a public app: it has no secret');

      const before = lines((await svc(['apps', 'list'], env())).stdout).length;
      for (const [uri, problem] of [
        ['http://partner.example.com/cb', 'must use https (http only on a loopback address'],
        ['https://partner.example.com/cb#frag', 'must not have a fragment'],
        ['partner.example.com/cb', 'must be an absolute URL'],
        ['https://user:pw@partner.example.com/cb', 'must not carry credentials'],
      ] as const) {
        const refused = await svc(['apps', 'create', '--name', 'Bad', '--redirect-uri', uri], env());
        expect(refused.code, uri).toBe(2);
        expect(refused.stderr).toContain(problem);
      }
      expect((await svc(['apps', 'create', '--name', 'No uri'], env())).stderr).toContain('--redirect-uri is required');
      expect((await svc(['apps', 'disable', 'app_nothing'], env())).code).toBe(2);
      expect(lines((await svc(['apps', 'list'], env())).stdout).length).toBe(before);
      const help = await svc(['apps', 'create', '--help'], env());
      expect([help.code, help.stdout]).toEqual([0, expect.stringContaining('svc apps create --name <name>')]);
    });
  },
  {},
  // The CLI runs the services the server runs, tested per dialect through HTTP: SQLite alone here.
  { only: 'sqlite' },
);
