import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { authService } from '../../src/modules/auth/auth.service.js';
import { node, ROOT, tempDir } from '../support/processes.js';
import { describeLive } from './live-server.js';

const CLIENT_ENTRY = path.join(ROOT, 'client/src/index.ts');
const ADMIN_TOKEN = 'sandbox-operator-token-0123456789';

/** The ```ts blocks of docs/sandbox.md, with the SDK's import pointed at its source. */
function examples(): string[] {
  const text = fs.readFileSync(path.join(ROOT, 'docs/sandbox.md'), 'utf8');
  return [...text.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) =>
    m[1]!.replaceAll("'@svc/client'", `'${CLIENT_ENTRY}'`),
  );
}

describeLive(
  'docs/sandbox.md',
  (s) => {
    it("runs the connector's test as written, with the SDK and the operator's token alone", async () => {
      const found = examples();
      expect(found).toHaveLength(1);
      const file = path.join(tempDir('svc-sandbox-doc-'), 'connector.test.mts');
      fs.writeFileSync(file, found[0]!);
      const before = new Set((await authService.listClients(s.live.ctx.db, null)).map((c) => c.client_id));

      const result = await node(['--import', 'tsx', file], { SVC_URL: s.live.url, SANDBOX_ADMIN_TOKEN: ADMIN_TOKEN });
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toBe('connector test passed\n');

      // It made one account, and closed it at the end.
      const made = (await authService.listClients(s.live.ctx.db, null)).filter((c) => !before.has(c.client_id));
      expect(made).toHaveLength(1);
      expect(made[0]!.account_id).toMatch(/^sbx_/);
      expect(made[0]!.revoked_at).not.toBeNull();
    }, 60_000);
  },
  { SANDBOX: 'true', SANDBOX_ADMIN_TOKEN: ADMIN_TOKEN },
);
