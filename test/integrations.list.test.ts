import { expect, it } from 'vitest';
import { describeEachDialect } from './support/context.js';
import { ISO_MICROS } from './support/expect.js';
import { connected, disconnectUrl, INTEGRATIONS, newVendor, storedIntegrations } from './support/integrations.js';

describeEachDialect("integrations: the account's list (GET /internal/v1/integrations, svc's own)", (t) => {
  it('lists current and past integrations in creation order, with when their status changed, page by page', async () => {
    const api = await t.ctx.as(['accounting.integration.write']);
    const [a, b] = [await newVendor(t.ctx.db, 'Acme ERP'), await newVendor(t.ctx.db, 'Borealis Books')];
    const ids: string[] = [];
    for (const [vendor, acct] of [
      [a, 'one'],
      [b, 'two'],
      [a, 'three'],
    ] as const) {
      const made = await connected(api, vendor, acct);
      ids.push(made.integration_id);
      if (ids.length < 3) expect((await api.post(disconnectUrl(made.integration_id), undefined)).status).toBe(200);
    }
    const all = await api.get(INTEGRATIONS);
    expect(all.status).toBe(200);
    const stored = await storedIntegrations(t.ctx, api.accountId);
    expect(all.body).toEqual({
      items: stored.map((row, i) => ({
        integration_id: ids[i],
        id: ids[i],
        vendor: row.vendor,
        vendor_account_id: row.vendor_account_id,
        // The vendor's name as the operator gave it, beside its id.
        vendor_name: row.vendor === a ? 'Acme ERP' : 'Borealis Books',
        status: i < 2 ? 'DISABLED' : 'ACTIVE',
        created_at: expect.stringMatching(ISO_MICROS),
        updated_at: expect.stringMatching(ISO_MICROS),
        disconnected_at: i < 2 ? expect.stringMatching(ISO_MICROS) : null,
      })),
      has_next_page: false,
      next_cursor: null,
    });
    expect(all.body.items[0].disconnected_at).toBe(all.body.items[0].updated_at);

    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await api.get(INTEGRATIONS, { limit: '2', ...(cursor ? { cursor } : {}) });
      expect(page.status).toBe(200);
      seen.push(...page.body.items.map((i: any) => i.integration_id));
      cursor = page.body.next_cursor;
    } while (cursor);
    expect(seen).toEqual(ids);

    const other = await t.ctx.as(['accounting.integration.read']);
    expect((await other.get(INTEGRATIONS)).body).toEqual({ items: [], has_next_page: false, next_cursor: null });
    const first = await api.get(INTEGRATIONS, { limit: '1' });
    const foreign = await other.get(INTEGRATIONS, { cursor: first.body.next_cursor });
    expect([foreign.status, foreign.body.error_code]).toEqual([400, 'INVALID_CURSOR']);
    expect((await api.get(INTEGRATIONS, { limit: '0' })).status).toBe(400);
  });
});
