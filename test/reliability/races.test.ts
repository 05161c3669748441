import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { isoToMicros } from '../../src/lib/clock.js';
import { ADMIN, EXPORT_RESULTS as EXPORT, INGEST, item } from '../support/accounting.js';
import { expectErrorShape } from '../support/expect.js';
import { valuesUrl, waitForLockWaiter } from '../support/field-values.js';
import { describeServed, HttpApi, report, tally, type HttpResponse } from '../support/reliability.js';
import { storedRecordRows, storedValues } from '../support/stored.js';

const N = 50;
/** A 42.50 USD card expense ready for export. */
const record = (source_id: string) => ({
  amount: { amount: 42.5, currency: 'USD' },
  source_id,
  review_status: 'READY_FOR_EXPORT',
});

/** 50 requests at once against a real `node dist/server.js` over HTTP; the stored state decides. */
describeServed(`${N}-way races over HTTP`, (t) => {
  let base: string;
  /** A second server process over the same database, as another node. */
  let otherBase: string;
  let requests = 0;
  const newApi = () => t.served.client(base, ADMIN);
  const all = (send: (i: number) => Promise<HttpResponse>) => {
    requests += N;
    return Promise.all(Array.from({ length: N }, (_, i) => send(i)));
  };

  beforeAll(async () => {
    base = (await t.served.start()).url;
    otherBase = (await t.served.start()).url;
  });
  afterAll(() => {
    report(`races [${t.dialect}]`, { concurrent: N, requests });
  });

  it('runs one write for 50 requests under one Idempotency-Key; the rest replay it or get 409 IDEMPOTENCY_KEY_IN_USE', async () => {
    const api = await newApi();
    const fieldId = await api.newField({ name: 'race' });
    const key = randomUUID();
    const body = { items: Array.from({ length: 10 }, (_, i) => ({ value: `v${i}`, remote_id: `r${i}` })) };
    const responses = await all(() => api.post(valuesUrl(fieldId), body, { 'idempotency-key': key }));
    const firsts = responses.filter((r) => r.status === 200 && !r.headers['idempotent-replayed']);
    expect(tally(firsts)).toEqual({ '200': 1 });
    for (const r of responses) {
      if (r.status === 409) expectErrorShape(r, 'IDEMPOTENCY_KEY_IN_USE');
      else expect({ status: r.status, body: r.body }).toEqual({ status: 200, body: firsts[0]!.body });
    }
    const stored = await storedValues(t.served, api.accountId, fieldId);
    expect(stored.map((v) => v.remote_id).sort()).toEqual(body.items.map((i) => i.remote_id).sort());
    // Records too: one ingestion under one key writes its items once.
    const ingestKey = randomUUID();
    const ingested = await all(() =>
      api.post(INGEST, { items: [item(record('once-1')), item(record('once-2'))] }, { 'idempotency-key': ingestKey }),
    );
    expect(ingested.filter((r) => r.status === 200 && !r.headers['idempotent-replayed'])).toHaveLength(1);
    expect(ingested.every((r) => r.status === 200 || r.body.error_code === 'IDEMPOTENCY_KEY_IN_USE')).toBe(true);
    const records = await storedRecordRows(t.served, api.accountId);
    expect(records.map((r) => r.source_id).sort()).toEqual(['once-1', 'once-2']);
  });

  it('runs one write for 50 requests under one key sent to two server processes at once', async () => {
    const api = await newApi();
    const elsewhere = new HttpApi(otherBase, api.token, api.accountId, api.clientId);
    const fieldId = await api.newField({ name: 'race' });
    const key = randomUUID();
    const body = { items: Array.from({ length: 10 }, (_, i) => ({ value: `v${i}`, remote_id: `r${i}` })) };
    const responses = await all((i) =>
      (i % 2 ? elsewhere : api).post(valuesUrl(fieldId), body, { 'idempotency-key': key }),
    );
    const firsts = responses.filter((r) => r.status === 200 && !r.headers['idempotent-replayed']);
    expect(tally(firsts)).toEqual({ '200': 1 });
    for (const r of responses) {
      if (r.status === 409) expectErrorShape(r, 'IDEMPOTENCY_KEY_IN_USE');
      else expect({ status: r.status, body: r.body }).toEqual({ status: 200, body: firsts[0]!.body });
    }
    const stored = await storedValues(t.served, api.accountId, fieldId);
    expect(stored.map((v) => v.remote_id).sort()).toEqual(body.items.map((i) => i.remote_id).sort());
    // Both processes replay it now.
    for (const client of [api, elsewhere]) {
      const again = await client.post(valuesUrl(fieldId), body, { 'idempotency-key': key });
      expect([again.status, again.headers['idempotent-replayed'], again.body]).toEqual([200, 'true', firsts[0]!.body]);
    }
  });

  it('refuses the key on another process while its first request runs (PostgreSQL: at once), and runs it once', async () => {
    const api = await newApi();
    const elsewhere = new HttpApi(otherBase, api.token, api.accountId, api.clientId);
    const key = { 'idempotency-key': randomUUID() };
    const body = { items: Array.from({ length: 1000 }, (_, i) => item(record(`held-${i}`))) };
    const held = async () =>
      (await storedRecordRows(t.served, api.accountId)).filter((r) => r.source_id?.startsWith('held-'));
    if (t.dialect === 'postgres') {
      // The first request is held inside its transaction, its key claimed, by the account's record clock, which the
      // test holds from another connection: the other process must refuse the key at once (it tries the claim's
      // lock and does not wait for it), whatever the machine's scheduling.
      await api.newRecord(record('clock'));
      const holder = new pg.Client({ connectionString: t.served.database.url });
      await holder.connect();
      let first: Promise<HttpResponse> | undefined;
      try {
        await holder.query('begin');
        await holder.query('select last_updated_at from account_record_clocks where account_id = $1 for update', [
          api.accountId,
        ]);
        first = api.post(INGEST, body, key);
        await waitForLockWaiter(t.served);
        const second = await elsewhere.post(INGEST, body, key);
        expect(second.status).toBe(409);
        expectErrorShape(second, 'IDEMPOTENCY_KEY_IN_USE');
        expect(await held()).toHaveLength(0);
      } finally {
        await holder.query('rollback');
        await holder.end();
      }
      const done = await first!;
      expect([done.status, done.headers['idempotent-replayed']]).toEqual([200, undefined]);
      expect(await held()).toHaveLength(1000);
      const replay = await elsewhere.post(INGEST, body, key);
      expect([replay.status, replay.headers['idempotent-replayed']]).toEqual([200, 'true']);
      expect(replay.body).toEqual(done.body);
      return;
    }
    // SQLite: the claim is the write transaction; the other process waits for the write lock (one writer at a
    // time), then finds the answer stored and replays it — or, when it looks the key up before the first has
    // committed, refuses it 409. Either way the ingestion runs once.
    const first = api.post(INGEST, body, key);
    expect(await t.served.writeUnderWay()).toBe(true);
    const second = await elsewhere.post(INGEST, body, key);
    const done = await first;
    expect([done.status, done.headers['idempotent-replayed']]).toEqual([200, undefined]);
    if (second.status !== 200) {
      expect(second.status).toBe(409);
      expectErrorShape(second, 'IDEMPOTENCY_KEY_IN_USE');
    } else {
      expect([second.headers['idempotent-replayed'], second.body]).toEqual(['true', done.body]);
    }
    expect(await held()).toHaveLength(1000);
    const replay = await elsewhere.post(INGEST, body, key);
    expect([replay.status, replay.headers['idempotent-replayed']]).toEqual([200, 'true']);
    expect(replay.body).toEqual(done.body);
  });

  it('lets exactly one of 50 export results for one record win; the others get 422 ACCOUNTING_RECORD_NOT_READY_FOR_EXPORT', async () => {
    const api = await newApi();
    const created = await api.newRecord(record('export-race'));
    const responses = await all((i) =>
      api.post(
        EXPORT,
        { results: [{ accounting_record_id: created.id, success: { reference_id: `ref-${i}` } }] },
        { 'idempotency-key': randomUUID() },
      ),
    );
    expect(tally(responses)).toEqual({ '200': 1, '422 ACCOUNTING_RECORD_NOT_READY_FOR_EXPORT': N - 1 });
    const winner = responses.findIndex((r) => r.status === 200);
    expect(responses[winner]!.body).toEqual({ updated_accounting_record_ids: [created.id] });
    for (const r of responses.filter((x) => x.status === 422)) {
      expectErrorShape(r, 'ACCOUNTING_RECORD_NOT_READY_FOR_EXPORT');
      expect(r.body.details).toEqual({ not_ready_for_export_accounting_record_ids: [created.id] });
    }
    const [row] = await storedRecordRows(t.served, api.accountId);
    expect({
      status: row!.review_status,
      version: row!.version,
      reference: JSON.parse(row!.last_export_json!).reference_id,
    }).toEqual({
      status: 'EXPORTED',
      version: created.version + 1,
      reference: `ref-${winner}`,
    });
  });

  it('runs one of 50 export results sent under one key; the others replay it or get 409 IDEMPOTENCY_KEY_IN_USE', async () => {
    const api = await newApi();
    const created = await api.newRecord(record('export-key-race'));
    const key = randomUUID();
    const body = { results: [{ accounting_record_id: created.id, failure: { error_message: 'ERP closed period' } }] };
    const responses = await all(() => api.post(EXPORT, body, { 'idempotency-key': key }));
    expect(responses.filter((r) => r.status === 200 && !r.headers['idempotent-replayed'])).toHaveLength(1);
    for (const r of responses) {
      if (r.status === 409) expectErrorShape(r, 'IDEMPOTENCY_KEY_IN_USE');
      else
        expect({ status: r.status, body: r.body }).toEqual({
          status: 200,
          body: { updated_accounting_record_ids: [created.id] },
        });
    }
    const [row] = await storedRecordRows(t.served, api.accountId);
    expect({ status: row!.review_status, version: row!.version }).toEqual({
      status: 'REVIEW',
      version: created.version + 1,
    });
  });

  it('loses no update among 50 concurrent updates of one value', async () => {
    const api = await newApi();
    const fieldId = await api.newField({ name: 'race' });
    const own = Array.from({ length: N }, (_, i) => ({ value: `own ${i}`, remote_id: `own-${i}` }));
    const created = await api.post(
      valuesUrl(fieldId),
      { items: [{ value: 'start', remote_id: 'shared' }, ...own] },
      { 'idempotency-key': randomUUID() },
    );
    expect(created.status).toBe(200);
    // Even requests rename the shared value, odd ones flip its flag; each also disables a value of its own.
    const data = (i: number) => (i % 2 === 0 ? { value: `u${i}` } : { is_disabled: i % 4 === 1 });
    const responses = await all((i) =>
      api.put(valuesUrl(fieldId), {
        items: [
          { remote_id: 'shared', data: data(i) },
          { remote_id: `own-${i}`, data: { is_disabled: true } },
        ],
      }),
    );
    expect(tally(responses)).toEqual({ '200': N });
    for (const [i, r] of responses.entries()) expect(r.body.items[0]).toMatchObject(data(i));
    const stored = await storedValues(t.served, api.accountId, fieldId);
    expect(stored.filter((v) => v.remote_id !== 'shared').every((v) => v.is_disabled === 1)).toBe(true);
    const shared = stored.find((v) => v.remote_id === 'shared')!;
    // The stored value is the state some request answered with after its own change (the last to commit).
    const answered = responses.map((r) => r.body.items[0]).map((v) => ({ value: v.value, is_disabled: v.is_disabled }));
    expect(answered).toContainEqual({ value: shared.value, is_disabled: shared.is_disabled === 1 });
    expect(shared.value).toMatch(/^u\d+$/);
    // updated_at never moves back: the last commit carries the greatest time any update answered with.
    const times = responses.map((r) => r.body.items[0].updated_at as string).sort();
    expect(isoToMicros(times.at(-1)!)).toBe(shared.updated_at);
  });

  it('stores one of 50 concurrent creates with the same remote_id; the others get 409 CONFLICT', async () => {
    const api = await newApi();
    const fieldId = await api.newField({ name: 'race' });
    const responses = await all((i) =>
      api.post(
        valuesUrl(fieldId),
        { items: [{ value: `contender ${i}`, remote_id: 'the-one' }] },
        { 'idempotency-key': randomUUID() },
      ),
    );
    expect(tally(responses)).toEqual({ '200': 1, '409 CONFLICT': N - 1 });
    for (const r of responses.filter((x) => x.status === 409)) expectErrorShape(r, 'CONFLICT');
    const winner = responses.find((r) => r.status === 200)!.body.items[0];
    const stored = await storedValues(t.served, api.accountId, fieldId);
    expect(stored.map((v) => ({ svc_id: v.svc_id, value: v.value, remote_id: v.remote_id }))).toEqual([
      { svc_id: winner.svc_id, value: winner.value, remote_id: 'the-one' },
    ]);
  });
});
