import type { Bench } from '../lib/context.js';
import { load, rate, type LoadResult } from '../lib/load.js';

/** Token issuance (client credentials), 50 connections, against the HTTP floor and the point read's data floor. */
export async function tokenScenario(b: Bench, floorLoad: LoadResult, pointLoad: LoadResult): Promise<void> {
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
