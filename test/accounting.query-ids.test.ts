import type { AddressInfo } from 'node:net';
import { beforeAll, expect, it } from 'vitest';
import { ADMIN, RECORDS } from './support/accounting.js';
import type { Api } from './support/api.js';
import { haproxyInstalled, startHaproxy, type Balancer } from './support/cluster.js';
import { describeEachDialect } from './support/context.js';

/** The spec's query with `ids` as a repeated parameter, as every client sends it. */
const idsQuery = (ids: string[], limit = 500) =>
  `${RECORDS}?${ids.map((id) => `ids=${encodeURIComponent(id)}`).join('&')}&limit=${limit}`;

/**
 * Issue 36, 1: the spec allows 500 ids in one records query. With real record ids the URL is about 18 KB, past
 * Node's default 16 KB of request headers (answered 431) and HAProxy's default 16 KB buffer. Served over real sockets,
 * directly and through deploy/haproxy.cfg, both dialects; a head past the server's own limit is still refused.
 */
describeEachDialect('accounting query with the spec’s 500 ids', (t) => {
  let api: Api;
  let ids: string[];
  let base: string;

  beforeAll(async () => {
    api = await t.ctx.as([...ADMIN]);
    ids = (await api.newRecords(Array.from({ length: 501 }, () => ({})))).map((record) => record.id);
    await t.ctx.app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(t.ctx.app.server.address() as AddressInfo).port}`;
  });

  const get = (url: string, path: string) =>
    fetch(`${url}${path}`, { headers: { authorization: `Bearer ${api.token}` } });

  it('answers 500 ids over a real socket with every record, and 501 with the spec’s 400', async () => {
    const path = idsQuery(ids.slice(0, 500));
    expect(path.length).toBeGreaterThan(16 * 1024);
    const res = await get(base, path);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { items: { id: string }[]; total_count: number; has_next_page: boolean };
    expect(body.total_count).toBe(500);
    expect(body.has_next_page).toBe(false);
    expect(body.items.map((r) => r.id).sort()).toEqual(ids.slice(0, 500).sort());

    const tooMany = await get(base, idsQuery(ids));
    expect(tooMany.status).toBe(400);
    const refusal = (await tooMany.json()) as { error_code: string; details: { errors: { path: string }[] } };
    expect(refusal.error_code).toBe('INVALID_REQUEST');
    expect(refusal.details.errors.map((e) => e.path)).toEqual(['/query/ids']);
  });

  it('still refuses a request head past its limit (64 KiB) with 431, and keeps serving', async () => {
    const res = await fetch(`${base}/healthz`, { headers: { 'x-padding': 'a'.repeat(70 * 1024) } });
    expect(res.status).toBe(431);
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
  });

  it.runIf(haproxyInstalled())('answers 500 ids through deploy/haproxy.cfg', async () => {
    const node = base.replace('http://', '');
    let balancer: Balancer | null = null;
    try {
      balancer = await startHaproxy([node, node, node]);
      const res = await get(balancer.url, idsQuery(ids.slice(0, 500)));
      expect(res.status).toBe(200);
      expect(((await res.json()) as { total_count: number }).total_count).toBe(500);
    } finally {
      await balancer?.stop();
    }
  });
});
