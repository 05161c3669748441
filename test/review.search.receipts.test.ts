import { expect, it } from 'vitest';
import type { Api, Query } from './support/api.js';
import { describeEachDialect } from './support/context.js';
import { errorBody } from './support/expect.js';
import { newJpeg, receiptsUrl, uploadRaw } from './support/receipts.js';
import { ids, REVIEWER, SEARCH } from './support/review.js';

const WRITER = [...REVIEWER, 'accounting.record.admin'] as const;

/** Every page of a search, `limit` records a page, as the ids of each page. */
async function pages(api: Api, query: Query, limit: number): Promise<string[][]> {
  const out: string[][] = [];
  let cursor: string | undefined;
  do {
    const res = await api.get(SEARCH, { ...query, limit: String(limit), ...(cursor ? { cursor } : {}) });
    expect(res.status, res.text).toBe(200);
    out.push(ids(res));
    cursor = res.body.next_cursor ?? undefined;
  } while (cursor);
  return out;
}

describeEachDialect('review search: the receipt filter', (t) => {
  it('finds records without a receipt (none ingested, an empty list, every one removed) and those with one', async () => {
    const api = await t.ctx.as(WRITER);
    // In updated_at order at the end: none, empty, ingested, removed, attached (the last two moved by their receipts).
    const [none, empty, ingested, removed, attached] = await api.newRecords([
      {},
      { receipts: [] },
      { receipts: [{ id: 'rc_ingested', download_uris: ['https://example.invalid/r.pdf'] }] },
      { review_status: 'REVIEW' },
      { review_status: 'REVIEW' },
    ]);
    const upload = async (recordId: string) => {
      const res = await uploadRaw(api, recordId, await newJpeg(), 'image/jpeg');
      expect(res.status, res.text).toBe(200);
      return res.body.receipt.id as string;
    };
    const gone = await api.request('DELETE', `${receiptsUrl(removed.id)}/${await upload(removed.id)}`);
    expect(gone.status, gone.text).toBe(200);
    await upload(attached.id);

    const cases: [Query, string[]][] = [
      [{}, [none.id, empty.id, ingested.id, removed.id, attached.id]],
      [{ receipt: 'missing' }, [none.id, empty.id, removed.id]],
      [{ receipt: 'present' }, [ingested.id, attached.id]],
      [{ receipt: 'missing', review_status: 'REVIEW' }, [removed.id]],
      [{ receipt: 'present', review_status: 'REVIEW' }, [attached.id]],
      [{ receipt: 'present', sort: '-updated_at' }, [attached.id, ingested.id]],
    ];
    const answers = [];
    for (const [query] of cases) {
      const res = await api.get(SEARCH, query);
      answers.push([query, res.status, res.status === 200 ? ids(res) : res.body]);
    }
    expect(answers).toEqual(cases.map(([query, expected]) => [query, 200, expected]));

    // Paged: the cursor keeps the filter (each page of one, nothing left out or repeated).
    expect(await pages(api, { receipt: 'missing' }, 1)).toEqual([[none.id], [empty.id], [removed.id]]);
    // A cursor of one filter does not continue another.
    const first = await api.get(SEARCH, { receipt: 'missing', limit: '1' });
    const crossed = await api.get(SEARCH, { receipt: 'present', limit: '1', cursor: first.body.next_cursor });
    expect([crossed.status, crossed.body.error_code]).toEqual([400, 'INVALID_CURSOR']);
  });

  it('refuses a receipt filter it does not know, naming the values it takes', async () => {
    const api = await t.ctx.as(REVIEWER);
    const res = await api.get(SEARCH, { receipt: 'yes' });
    expect([res.status, res.body]).toEqual([
      400,
      errorBody('INVALID_REQUEST', {
        details: { errors: [{ path: '/query/receipt', message: 'must be one of: missing, present (got "yes")' }] },
      }),
    ]);
  });
});
