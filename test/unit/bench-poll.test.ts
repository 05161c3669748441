import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkPoll, checkScan, scanPage } from '../../bench/lib/poll-page.js';

/** A record as the service writes it: id first, line items with their own ids, stored objects spliced in. */
const record = (id: string, memo: string | null = 'memo', vendor = 'Vendor') => ({
  id,
  amount: { value: 1250, currency: 'EUR' },
  memo,
  updated_at: '2026-11-24T00:00:00.000000Z',
  line_items: [
    { id: `accrli_${id.slice(5)}a`, description: memo, amount: { value: 1250, currency: 'EUR' } },
    { id: `accrli_${id.slice(5)}b`, description: null, amount: { value: 1250, currency: 'EUR' } },
  ],
  receipts: [{ id: 'rcpt_1', download_uris: [] }],
  user: { id: 'u1', name: memo },
  vendor: { id: 'v1', name: vendor },
});

const pageOf = (items: object[], next: string | null, total: number) =>
  Buffer.from(JSON.stringify({ items, has_next_page: next !== null, next_cursor: next, total_count: total }), 'utf8');

const id = (n: number) => `accr_01j${String(n).padStart(23, '0')}`;

describe('bench: a page of the poll, scanned', () => {
  it('finds the records, the cursor and the total count without parsing', () => {
    const body = pageOf([record(id(1)), record(id(2)), record(id(3))], 'AbC-_09', 1000);
    const scan = scanPage(body);
    expect(scan).toEqual({ ids: [id(1), id(2), id(3)], hasNextPage: true, nextCursor: 'AbC-_09', totalCount: 1000 });
    expect(() => checkScan(body, scan)).not.toThrow();
  });

  it('reads the last page and an empty one', () => {
    expect(scanPage(pageOf([record(id(7))], null, 7))).toEqual({
      ids: [id(7)],
      hasNextPage: false,
      nextCursor: null,
      totalCount: 7,
    });
    expect(scanPage(pageOf([], null, 0))).toEqual({ ids: [], hasNextPage: false, nextCursor: null, totalCount: 0 });
  });

  it('is not misled by text in the records, whatever it holds', () => {
    const tricky = [
      '{"id":"accr_fake"}',
      '],"has_next_page":false,"next_cursor":null,"total_count":1}',
      '\\',
      '"',
      'ünïcødé ✓ 𝄞',
    ];
    const items = tricky.map((memo, n) => record(id(n), memo, memo));
    const body = pageOf(items, 'next', 99);
    const scan = scanPage(body);
    expect(scan.ids).toEqual(items.map((r) => r.id));
    expect(scan.nextCursor).toBe('next');
    checkScan(body, scan);

    const text = fc.string({ unit: 'binary', maxLength: 40 });
    fc.assert(
      fc.property(fc.array(fc.tuple(text, text), { maxLength: 6 }), fc.boolean(), (memos, more) => {
        const its = memos.map(([memo, vendor], n) => record(id(n), memo, vendor));
        const b = pageOf(its, more ? 'c' : null, its.length);
        const s = scanPage(b);
        expect(s.ids).toEqual(its.map((r) => r.id));
        checkScan(b, s);
      }),
    );
  });

  it('refuses what is not a page of records, and a scan that the parse contradicts', () => {
    expect(() => scanPage(Buffer.from('{"code":"UNAUTHORIZED","message":"no"}'))).toThrow(/not a page of records/);
    // Members in another order than the service writes them.
    const reordered = Buffer.from(
      JSON.stringify({ items: [], next_cursor: null, has_next_page: false, total_count: 0 }),
      'utf8',
    );
    expect(() => scanPage(reordered)).toThrow(/not a page of records/);
    expect(() => scanPage(Buffer.from('{"items":[],"has_next_page":true,"next_cursor":null,"total_count":0}'))).toThrow(
      /has_next_page true/,
    );
    // A record whose id is not its first member is invisible to the scan: the parse of a sampled page says so.
    const body = pageOf([record(id(1)), { source_type: 'CARD', ...record(id(2)) }], null, 2);
    const scan = scanPage(body);
    expect(scan.ids).toEqual([id(1)]);
    expect(() => checkScan(body, scan)).toThrow(/differs from the page parsed: 1 ids/);
  });
});

describe('bench: the poll saw every record once', () => {
  const pages = (...sizes: number[]) => {
    let n = 0;
    const total = sizes.reduce((a, b) => a + b, 0);
    return sizes.map((size) => ({ ids: Array.from({ length: size }, () => id(n++)), totalCount: total }));
  };

  it('counts full pages and a last one', () => {
    expect(checkPoll(pages(3, 3, 1), 3)).toBe(7);
    expect(checkPoll(pages(3, 3), 3)).toBe(6);
    expect(checkPoll([], 3)).toBe(0);
  });

  it('refuses a short page before the last, a record twice, a count that moved, or a record missing', () => {
    expect(() => checkPoll(pages(3, 2, 1), 3)).toThrow(/page 2 of 3 holds 2 records/);
    const twice = pages(3, 3);
    twice[1]!.ids[0] = twice[0]!.ids[2]!;
    expect(() => checkPoll(twice, 3)).toThrow(/seen twice \(again on page 2\)/);
    const moved = pages(3, 1);
    moved[1]!.totalCount = 5;
    expect(() => checkPoll(moved, 3)).toThrow(/page 2 counts 5 records, the first 4/);
    const missing = pages(3, 1).map((p) => ({ ...p, totalCount: 5 }));
    expect(() => checkPoll(missing, 3)).toThrow(/4 records seen of 5/);
  });
});
