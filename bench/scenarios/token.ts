import type { Bench } from '../lib/context.js';
import { rate, type LoadResult } from '../lib/load.js';
import { alternate, floorConnections, floorServer } from '../lib/point-floor.js';

/**
 * Token issuance (client credentials), 50 connections, in alternating slices with its data floor (a bare route that
 * reads the client, checks its secret and commits the token's row in groups: bench/data-floor-server.ts); reported
 * against the HTTP floor (the target), the token floor and the point read's data floor.
 */
export async function tokenScenario(b: Bench, floorLoad: LoadResult, pointLoad: LoadResult): Promise<void> {
  const floor = await floorServer(b);
  const request = {
    method: 'POST' as const,
    headers: {
      authorization: `Basic ${Buffer.from(`${b.creds.client_id}:${b.creds.client_secret}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: 'grant_type=client_credentials',
  };
  let tokens: { svc: LoadResult; floor: LoadResult };
  try {
    tokens = await alternate(
      b.settings.duration,
      Math.max(2, Math.round(b.settings.duration / 2.5)),
      { ...request, url: `${b.server.url}/oauth2/token` },
      { ...request, url: `${floor.url}/token` },
    );
  } finally {
    await floor.stop();
  }
  if (tokens.floor.non2xx + tokens.floor.errors > 0) {
    throw new Error(`token floor: ${tokens.floor.non2xx} answers not 2xx, ${tokens.floor.errors} errors`);
  }
  const tokenLoad = tokens.svc;
  b.add({
    name: `floor: bare Fastify POST issuing a token (the client read, its secret checked, the token's row committed in groups), same driver, ${floorConnections(b)} (50 connections)`,
    unit: 'req/s',
    ...rate(tokens.floor),
  });
  b.add({ name: 'token issuance', unit: 'req/s', ...rate(tokenLoad), floor: floorLoad.rps, minShare: 0.25 });
  b.add({
    name: 'token issuance against the token floor',
    unit: 'req/s',
    ...rate(tokenLoad),
    floor: tokens.floor.rps,
    floorName: 'token',
    floorP99: tokens.floor.p99,
    reported: true,
  });
  // Beside the point read's data floor of the values' scenarios (issue 34): a single-row request against the cost
  // of reading one row and sending it (a token also writes one).
  b.add({
    name: 'token issuance against the point read floor',
    unit: 'req/s',
    ...rate(tokenLoad),
    floor: pointLoad.rps,
    floorName: 'point read',
    reported: true,
  });
}
