import type { Executor } from '../../db/database.js';

/** A claimed delivery with what its attempt needs: the endpoint's target and secrets, the event. */
export interface DueDelivery {
  account_id: string;
  delivery_id: string;
  endpoint_id: string;
  event_id: string;
  attempts: number;
  retry_from: number;
  url: string;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: number | null;
  type: string;
  occurred_at: number;
  data_json: string;
}

/** An endpoint's place in the dispatcher's rotations: its account, then itself. */
export interface EndpointKey {
  account_id: string;
  endpoint_id: string;
}

/** Claims up to `limit` of one endpoint's due deliveries, oldest due first, each leased to `claim` until `leaseEnd`. */
export type Claim = (
  ex: Executor,
  endpoint: EndpointKey,
  now: number,
  limit: number,
  leaseEnd: number,
  claim: { token: string; by: string },
) => Promise<DueDelivery[]>;
