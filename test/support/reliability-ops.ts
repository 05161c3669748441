/** The reliability workload's ops and its model of the stored state (reliability-workload.ts makes them). */

export type OpKind =
  'create' | 'update' | 'delete' | 'ingest' | 'export' | 'fail' | 'reopen' | 'code' | 'split' | 'merge' | 'approve';

export interface Op {
  kind: OpKind;
  method: 'POST' | 'PUT' | 'DELETE';
  path: string;
  body: any;
  key: string;
  /** remote_ids (values) or source_ids (records) the op touches, and what it sets. */
  targets: string[];
  text: string;
}

/** An economic line as the model knows it: its id, amount in cents, and the remote_id of its value (null: uncoded). */
export interface ModelLine {
  id: string;
  cents: number;
  coded: string | null;
}

/** What the model knows of a record: its review state and version, its last export report and its economic lines. */
export interface ModelRecord {
  id: string;
  status: 'READY_FOR_EXPORT' | 'EXPORTED' | 'REVIEW';
  version: number;
  /** The reference of the last export reported a success; the message of the last one reported a failure. */
  reference: string | null;
  failure: string | null;
  lines: ModelLine[];
}

export const usd = (cents: number) => ({ amount: cents / 100, currency: 'USD' });
export const centsOf = (money: { amount: number }) => Math.round(money.amount * 100);
/** Every record of the workload books its economic side as DEBIT lines (card expenses and bill expenses). */
export const economicLines = <L extends { id: string; type: string }>(lineItems: L[]): L[] =>
  lineItems.filter((l) => l.type === 'DEBIT');
