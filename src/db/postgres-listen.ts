import type PgModule from 'pg';

/** What a listener tells its owner: each notification heard, and when it starts and stops listening. */
export interface ListenHandlers {
  notified(): void;
  /** LISTEN holds: from here on every notification on the channel is heard. */
  listening(): void;
  /** The connection is lost (or closed): notifications sent meanwhile are not heard. It reconnects a second later. */
  lost(): void;
}

/**
 * A connection of its own that LISTENs on `channel`, reconnecting a second after it is lost. It must reach
 * PostgreSQL itself: through a PgBouncer in transaction mode its LISTEN hears nothing (DATABASE_LISTEN_URL gives a
 * direct URL when DATABASE_URL goes through one).
 */
export function listenOn(
  pg: typeof PgModule,
  url: string,
  channel: string,
  on: ListenHandlers,
): { close(): Promise<void> } {
  let client: PgModule.Client | null = null;
  let closed = false;
  let retry: NodeJS.Timeout | undefined;
  const lost = () => {
    on.lost();
    const gone = client;
    client = null;
    gone?.removeAllListeners('notification');
    gone?.end().catch(() => undefined);
    if (!closed) retry = setTimeout(connect, 1000).unref();
  };
  const connect = () => {
    const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
    client = c;
    c.on('error', () => client === c && lost());
    c.on('end', () => client === c && lost());
    c.on('notification', (message) => {
      if (message.channel === channel) on.notified();
    });
    c.connect()
      .then(() => c.query(`listen ${channel}`))
      .then(() => {
        if (client === c) on.listening();
      })
      .catch(() => client === c && lost());
  };
  connect();
  return {
    async close() {
      closed = true;
      clearTimeout(retry);
      on.lost();
      const c = client;
      client = null;
      await c?.end().catch(() => undefined);
    },
  };
}
