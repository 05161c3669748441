import type { DialectName } from '../../src/db/database.js';
import type { Scope } from '../../src/modules/auth/scopes.js';
import { createTestContext, type TestContext } from '../support/context.js';
import { eachDialectWith } from '../support/dialects.js';

export interface LiveServer {
  ctx: TestContext;
  url: string;
  /** Credentials of a new client with these scopes, of a new account or of `accountId`. */
  credentials(
    scopes: readonly Scope[],
    accountId?: string,
  ): Promise<{ clientId: string; clientSecret: string; accountId: string }>;
  close(): Promise<void>;
}

/** A test context whose app listens on a free loopback port, for clients that speak HTTP. */
async function startLive(dialect: DialectName, env: Record<string, string>): Promise<LiveServer> {
  const ctx = await createTestContext(dialect, env);
  try {
    const url = await ctx.app.listen({ host: '127.0.0.1', port: 0 });
    return {
      ctx,
      url,
      async credentials(scopes, accountId) {
        const c = await ctx.newClient(scopes, accountId);
        return { clientId: c.client_id, clientSecret: c.client_secret, accountId: c.account_id };
      },
      close: () => ctx.close(),
    };
  } catch (error) {
    await ctx.close();
    throw error;
  }
}

/**
 * A real server listening on a free loopback port, for clients that speak HTTP: on SQLite alone. The SDK and the
 * reference integration exercise no dialect-specific code; the server's behaviour is tested per dialect elsewhere.
 */
export function describeLive(
  name: string,
  suite: (s: { readonly live: LiveServer; readonly dialect: DialectName }) => void,
  env: Record<string, string> = {},
): void {
  eachDialectWith(
    name,
    (dialect) => startLive(dialect, env),
    (current, dialect) =>
      suite({
        get live() {
          return current();
        },
        dialect,
      }),
    { only: 'sqlite' },
  );
}
