import { afterAll, beforeAll, describe } from 'vitest';
import type { DialectName } from '../../src/db/database.js';
import type { Scope } from '../../src/modules/auth/scopes.js';
import { createTestContext, type TestContext } from '../support/context.js';
import { DIALECTS } from '../support/dialects.js';

export interface LiveServer {
  ctx: TestContext;
  url: string;
  /** Credentials of a new client with these scopes, of a new account or of `accountId`. */
  credentials(
    scopes: readonly Scope[],
    accountId?: string,
  ): Promise<{ clientId: string; clientSecret: string; accountId: string }>;
}

/** Each dialect: a real server listening on a free loopback port, for clients that speak HTTP. */
export function describeLive(
  name: string,
  suite: (s: { readonly live: LiveServer; readonly dialect: DialectName }) => void,
  env: Record<string, string> = {},
): void {
  for (const dialect of DIALECTS) {
    describe(`${name} [${dialect}]`, () => {
      let live: LiveServer | undefined;
      beforeAll(async () => {
        const ctx = await createTestContext(dialect, env);
        const url = await ctx.app.listen({ host: '127.0.0.1', port: 0 });
        live = {
          ctx,
          url,
          async credentials(scopes, accountId) {
            const c = await ctx.newClient(scopes, accountId);
            return { clientId: c.client_id, clientSecret: c.client_secret, accountId: c.account_id };
          },
        };
      });
      afterAll(async () => {
        await live?.ctx.close();
      });
      suite({
        get live() {
          if (!live) throw new Error('server not started');
          return live;
        },
        dialect,
      });
    });
  }
}
