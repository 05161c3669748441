import { expect, it } from 'vitest';
import { RECORDS } from './support/accounting.js';
import { ruleChart } from './support/coding-rules.js';
import { describeEachDialect } from './support/context.js';
import { errorBody } from './support/expect.js';
import { coding, historyUrl } from './support/review.js';
import { storedRecord } from './support/stored.js';
import { acceptUrl, history } from './support/suggestions.js';

const uber = { vendor: { id: 'v', name: 'Uber' } };
const line = (amount: number, field_values: unknown[] = []) => ({ amount: { amount, currency: 'USD' }, field_values });

/** An account whose Uber records were coded Travel and Sales three times, and a new Uber record of two lines. */
async function uberStory(ctx: Parameters<typeof ruleChart>[0]) {
  const chart = await ruleChart(ctx);
  const { api, gl, dept, set } = chart;
  await history(
    api,
    [0, 1, 2].map(() => ({ vendor: 'Uber', codes: [set(gl, 1), set(dept, 0)] })),
  );
  const record = await api.newRecord({ ...uber, lines: [line(100), line(71.75, [set(dept, 1)])] });
  return { ...chart, record };
}

const reason = (value: string) => `3 of the last 3 records of vendor Uber were coded ${value}`;

describeEachDialect('coding suggestions: accepting', (t) => {
  it('codes the lines with the suggestions in one new version, its CODED event naming each suggestion', async () => {
    const { api, gl, dept, set, record } = await uberStory(t.ctx);
    const [first, second] = record.line_items;
    const res = await api.create(acceptUrl(record.id), { version: 1 });
    expect(res.status, res.text).toBe(200);
    const accepted = [
      { line_id: first.id, ...set(gl, 1), confidence: 1, signal: 'VENDOR', reason: reason('6020 Travel') },
      { line_id: first.id, ...set(dept, 0), confidence: 1, signal: 'VENDOR', reason: reason('Sales') },
      { line_id: second.id, ...set(gl, 1), confidence: 1, signal: 'VENDOR', reason: reason('6020 Travel') },
    ];
    expect(res.body.accepted).toEqual(accepted);
    const now = (await api.get(`${RECORDS}/${record.id}`)).body;
    expect(res.body.record).toEqual(now);
    expect(res.body.single_entry.line_items.map((l: any) => l.id)).toEqual([first.id, second.id]);
    expect(now.version).toBe(2);
    expect(now.updated_at > record.updated_at).toBe(true);
    expect(now.line_items[0].accounting_field_values).toEqual([
      coding(gl.field, gl.values[1]),
      coding(dept.field, dept.values[0]),
    ]);
    // The person's Ops stays; the GL it lacked is added after it.
    expect(now.line_items[1].accounting_field_values).toEqual([
      coding(dept.field, dept.values[1]),
      coding(gl.field, gl.values[1]),
    ]);
    const events = (await api.get(historyUrl(record.id))).body.items;
    expect(events.map((e: any) => [e.version, e.type])).toEqual([
      [1, 'INGESTED'],
      [2, 'CODED'],
    ]);
    expect(events[1].changes).toEqual({
      lines: [
        { line_id: first.id, before: [], after: now.line_items[0].accounting_field_values },
        {
          line_id: second.id,
          before: [coding(dept.field, dept.values[1])],
          after: now.line_items[1].accounting_field_values,
        },
      ],
      accepted_suggestions: accepted,
    });
    expect(await storedRecord(t.ctx, api.accountId, record.id)).toMatchObject({ version: 2, uncoded_lines: 0 });
    // Nothing left to accept: nothing changes.
    const again = await api.create(acceptUrl(record.id), { version: 2 });
    expect(again.status, again.text).toBe(200);
    expect(again.body).toEqual({ ...res.body, accepted: [] });
    expect((await api.get(historyUrl(record.id))).body.items).toHaveLength(2);
  });

  it('accepts only the lines and fields named', async () => {
    const { api, gl, set, record } = await uberStory(t.ctx);
    const [first, second] = record.line_items;
    const res = await api.create(acceptUrl(record.id), {
      version: 1,
      line_ids: [second.id],
      field_ids: [gl.field.svc_id],
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.accepted).toEqual([
      { line_id: second.id, ...set(gl, 1), confidence: 1, signal: 'VENDOR', reason: reason('6020 Travel') },
    ]);
    expect(res.body.record.line_items[0].id).toBe(first.id);
    expect(res.body.record.line_items[0].accounting_field_values).toEqual([]);
    const balancing = record.line_items.find((l: any) => l.type === 'CREDIT');
    const bad = await api.create(acceptUrl(record.id), { version: 2, line_ids: [balancing.id, 'accrli_nope'] });
    expect(bad.status).toBe(400);
    expect(bad.body.details.errors.map((e: any) => e.path)).toEqual(['/line_ids/0', '/line_ids/1']);
    expect((await api.get(`${RECORDS}/${record.id}`)).body.version).toBe(2);
  });

  it('refuses a stale version (409 VERSION_CONFLICT), a record not under review (409), and another account’s record (404)', async () => {
    const { api, record } = await uberStory(t.ctx);
    const stale = await api.create(acceptUrl(record.id), { version: 2 });
    expect(stale.status).toBe(409);
    expect(stale.body).toEqual(errorBody('VERSION_CONFLICT', { details: { expected_version: 2, current_version: 1 } }));
    const ready = await api.readyRecord(uber);
    const notEditable = await api.create(acceptUrl(ready.id), { version: 1 });
    expect(notEditable.status).toBe(409);
    expect(notEditable.body.error_code).toBe('RECORD_NOT_EDITABLE');
    const other = await ruleChart(t.ctx);
    const foreign = await other.api.create(acceptUrl(record.id), { version: 1 });
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual(errorBody('NOT_FOUND', { details: { accounting_record_id: record.id } }));
    expect((await api.get(`${RECORDS}/${record.id}`)).body).toEqual(record);
    const invalid = await api.create(acceptUrl(record.id), { version: 0, extra: true });
    expect(invalid.status).toBe(400);
    expect(invalid.body.details.errors.map((e: any) => e.path).sort()).toEqual(['/extra', '/version']);
  });

  it('honours Idempotency-Key: a retry answers the stored result and accepts nothing twice', async () => {
    const { api, record } = await uberStory(t.ctx);
    const headers = { 'idempotency-key': `accept-${record.id}` };
    const first = await api.post(acceptUrl(record.id), { version: 1 }, headers);
    expect(first.status, first.text).toBe(200);
    const retry = await api.post(acceptUrl(record.id), { version: 1 }, headers);
    expect(retry.status).toBe(200);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.body).toEqual(first.body);
    expect((await api.get(`${RECORDS}/${record.id}`)).body.version).toBe(2);
    const reused = await api.post(acceptUrl(record.id), { version: 2 }, headers);
    expect(reused.status).toBe(422);
    expect(reused.body.error_code).toBe('IDEMPOTENCY_KEY_REUSED');
  });
});
