import type { Bench } from '../lib/context.js';
import { load, rate, type LoadResult } from '../lib/load.js';

/** Token issuance (client credentials), 50 connections, against the HTTP floor. */
export async function tokenScenario(b: Bench, floorLoad: LoadResult): Promise<void> {
  const tokenLoad = await load({
    url: `${b.server.url}/oauth2/token`,
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${b.creds.client_id}:${b.creds.client_secret}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: 'grant_type=client_credentials',
    durationSeconds: b.settings.duration,
  });
  b.add({ name: 'token issuance', unit: 'req/s', ...rate(tokenLoad), floor: floorLoad.rps, minShare: 0.25 });
}
