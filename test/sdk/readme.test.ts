import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import type { Scope } from '../../src/modules/auth/scopes.js';
import { ADMIN, RECORDS } from '../support/accounting.js';
import { ISO_MICROS, VALUE_ID } from '../support/expect.js';
import { rowShape } from '../support/field-values.js';
import { node, ROOT, tempDir } from '../support/processes.js';
import { storedFields, storedKeys, storedTokens, storedValues } from '../support/stored.js';
import { describeLive, type LiveServer } from './live-server.js';

const CLIENT_ENTRY = path.join(ROOT, 'client/src/index.ts');
/** What the examples' clients may do: what a README reader's integration would be given. */
const SCOPES = ['fields.read', 'fields.write', 'field_values.write', 'accounting.record.write'] as const;
/** What the review example's client may do: what an accountant's tool would be given. */
const REVIEW_SCOPES = ['accounting.record.review', 'fields.read'] as const;
const usd = (amount: number) => ({ amount, currency: 'USD' });

/** The ```ts blocks of the client's README, each with the `## ` heading it stands under. */
function examples(): { heading: string; code: string }[] {
  const text = fs.readFileSync(path.join(ROOT, 'client/README.md'), 'utf8');
  const blocks: { heading: string; code: string }[] = [];
  let heading = '';
  for (const m of text.matchAll(/^## (.+)$|^```ts\n([\s\S]*?)^```$/gm)) {
    if (m[1] !== undefined) heading = m[1];
    else blocks.push({ heading, code: m[2]!.replaceAll("'@svc/client'", `'${CLIENT_ENTRY}'`) });
  }
  return blocks;
}

/**
 * A new client of a new account (with an admin of the same account, to make data and read it back), and the
 * example under `heading` run as a program of its own by it: `node --import tsx`, with SVC_URL, SVC_CLIENT_ID
 * and SVC_CLIENT_SECRET in the child's environment alone. The example must exit 0; its output is answered.
 */
async function reader(live: LiveServer, scopes: readonly Scope[] = SCOPES) {
  const creds = await live.credentials(scopes);
  const admin = await live.ctx.as([...ADMIN], creds.accountId);
  const run = async (heading: string): Promise<string> => {
    const found = examples().filter((b) => b.heading === heading);
    expect(found, `one example under "## ${heading}"`).toHaveLength(1);
    const file = path.join(tempDir('svc-readme-'), 'example.mts');
    fs.writeFileSync(file, found[0]!.code);
    const env = { SVC_URL: live.url, SVC_CLIENT_ID: creds.clientId, SVC_CLIENT_SECRET: creds.clientSecret };
    const result = await node(['--import', 'tsx', file], env);
    expect(result.code, result.stderr).toBe(0);
    // One client made with credentials: it fetched one token, which served every request.
    expect(await storedTokens(live.ctx, creds.clientId)).toHaveLength(1);
    return result.stdout;
  };
  return { ...creds, admin, run };
}

describeLive('client README examples', (s) => {
  it('are the examples checked here, each under its heading', () => {
    expect(examples().map((b) => b.heading)).toEqual([
      'Connect',
      'Custom fields and values',
      'Accounting records and export results',
      'Review workflow',
      'Errors and large batches',
      'Hooks, rate limits and timeouts',
    ]);
  });

  it('Connect: lists at most 10 fields with client credentials and prints how many came', async () => {
    const { admin, run } = await reader(s.live);
    for (let i = 0; i < 11; i++) await admin.newField({ name: `Field ${i}` });
    expect(await run('Connect')).toBe('10\n');
  });

  it('Custom fields and values: creates a field and two values, disables one, lists both, deletes the other', async () => {
    const { admin, accountId, clientId, run } = await reader(s.live);
    await admin.newField({ name: 'Department' });
    const printed = (await run('Custom fields and values')).split('\n');

    const fields = await storedFields(s.live.ctx, accountId);
    expect(fields.map((f) => [f.name, f.field_group, f.remote_id, f.is_disabled])).toEqual([
      ['Department', 'ACCOUNTING', null, 0],
      ['GL Account', 'ACCOUNTING', null, 0],
    ]);
    const gl = fields[1]!.svc_id;
    const values = await storedValues(s.live.ctx, accountId, gl);
    expect(values.map(rowShape)).toEqual([
      {
        svc_id: expect.stringMatching(VALUE_ID),
        field_id: gl,
        value: '6000 Travel',
        is_disabled: true,
        remote_id: 'GL-6000',
        value_id: null,
      },
    ]);
    // Both values as listed before the delete, in creation order: the disabled one, then the deleted one.
    expect(printed).toEqual([`${values[0]!.svc_id} 6000 Travel true`, expect.any(String), '']);
    const [deleted, ...rest] = printed[1]!.split(' ');
    expect([deleted, rest.join(' ')]).toEqual([expect.stringMatching(VALUE_ID), '7500 Other G&A false']);
    expect(deleted! > values[0]!.svc_id).toBe(true);
    // The create was sent under the example's own Idempotency-Key.
    expect(await storedKeys(s.live.ctx, clientId)).toContain(`gl-import-${gl}`);
  });

  it('Accounting records and export results: reports the first ready record exported, and handles a 404', async () => {
    const { admin, run } = await reader(s.live);
    const [first, second, preparing] = await admin.newRecords([
      { review_status: 'READY_FOR_EXPORT' },
      { review_status: 'READY_FOR_EXPORT', type: 'REIMBURSEMENT_EXPENSE_POST' },
      {},
    ]);
    const printed = (await run('Accounting records and export results')).split('\n');

    expect(printed).toEqual([`[ '${first.id}' ]`, expect.stringMatching(/^404 req_[A-Za-z0-9_-]{16}$/), '']);
    const exported = (await admin.get(`${RECORDS}/${first.id}`)).body;
    expect(exported).toEqual({
      ...first,
      review_status: 'EXPORTED',
      version: 2,
      updated_at: expect.stringMatching(ISO_MICROS),
      last_export_result: {
        status: 'SUCCESS',
        reference_id: 'JE-1001',
        deep_link_url: 'https://erp.example/je/1001',
        error_message: null,
        reported_at: exported.updated_at,
      },
    });
    for (const untouched of [second, preparing]) {
      expect((await admin.get(`${RECORDS}/${untouched.id}`)).body).toEqual(untouched);
    }
  });

  it('Review workflow: codes the uncoded records under review, approves them in one move, and prints a history', async () => {
    const { admin, run } = await reader(s.live, REVIEW_SCOPES);
    const gl = await admin.newCoding('GL Account', [
      { value: '6000 Travel', remote_id: 'GL-6000' },
      { value: '7500 Other G&A', remote_id: 'GL-7500' },
    ]);
    const other = [{ field_id: gl.field.svc_id, svc_id: gl.values[1].svc_id }];
    const [a, b, preparing, coded] = await admin.newRecords([
      { review_status: 'REVIEW' },
      { review_status: 'REVIEW', lines: [{ amount: usd(100) }, { amount: usd(71.75) }] },
      {},
      { review_status: 'REVIEW', lines: [{ amount: usd(171.75), field_values: other }] },
    ]);
    const printed = (await run('Review workflow')).split('\n');

    expect(printed).toEqual([
      `${a.id} READY_FOR_EXPORT 3`,
      `${b.id} READY_FOR_EXPORT 3`,
      '1 INGESTED',
      '2 CODED',
      '3 MOVED',
      '',
    ]);
    const travel = {
      svc_field_id: gl.field.svc_id,
      remote_field_id: null,
      svc_field_value_id: gl.values[0].svc_id,
      remote_field_value_id: 'GL-6000',
      field_name: 'GL Account',
      field_value_name: '6000 Travel',
      type: 'IDENTIFIER',
    };
    for (const record of [a, b]) {
      const now = (await admin.get(`${RECORDS}/${record.id}`, { single_entry: 'true' })).body;
      expect([now.review_status, now.version]).toEqual(['READY_FOR_EXPORT', 3]);
      expect(now.line_items.map((l: any) => l.accounting_field_values)).toEqual(now.line_items.map(() => [travel]));
    }
    // Out of the queue: not under review, or coded already.
    for (const untouched of [preparing, coded]) {
      expect((await admin.get(`${RECORDS}/${untouched.id}`)).body).toEqual(untouched);
    }
  });

  it('Errors and large batches: narrows a 404 by class, and finishes a 2500-value import after a refused chunk', async () => {
    const { admin, run } = await reader(s.live);
    const printed = (await run('Errors and large batches')).split('\n');
    expect(printed).toEqual([
      expect.stringMatching(/^NOT_FOUND req_[A-Za-z0-9_-]{16}$/),
      '0:applied 1:failed 2:not_sent',
      '2500',
      '',
    ]);
    const [chart] = (await admin.get('/v1/fields')).body.items;
    const values = await storedValues(s.live.ctx, admin.accountId, chart.svc_id);
    expect(values).toHaveLength(2500);
    expect(new Set(values.map((v: any) => v.remote_id)).size).toBe(2500);
  });

  it('Hooks, rate limits and timeouts: tags each attempt with its own request id, which svc echoes; an aborted call is not sent', async () => {
    const { run } = await reader(s.live, ['fields.read']);
    expect(await run('Hooks, rate limits and timeouts')).toBe(
      ['GET /v1/fields 200 nightly-1-1 true', 'GET /v1/fields 200 nightly-2-1 true', 'ABORTED', ''].join('\n'),
    );
  });
});
