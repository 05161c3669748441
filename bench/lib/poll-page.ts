/**
 * A page of `GET /v3/accounting/records` read without parsing it (issue 16: the poll's client must not add its
 * own JSON.parse of ~750 kB to every page's time). The service writes the page as
 * `{"items":[<records>],"has_next_page":B,"next_cursor":C,"total_count":N}` (accounting.service.ts, in
 * RecordPage's order), each record starting with its `id` (record.shape.ts; ids are `accr_…`, line items' are
 * `accrli_…`).
 *
 * Why a scan of the bytes is exact on a valid JSON text: a `"` inside a string is always escaped, so `{"` can
 * only be an object's start followed by its first key, never text inside a string; and a match of the closing
 * members anchored at the text's end is made of structural tokens (the last `}` closes the top-level object).
 * What the scan cannot see (a record whose first member is not its id, another member after the items) the
 * bench catches by parsing a sample of the pages off the clock and comparing (`checkScan`).
 */

const HEAD = Buffer.from('{"items":[');
const TAIL_START = Buffer.from('],"has_next_page":');
const TAIL = /^\],"has_next_page":(true|false),"next_cursor":(null|"([A-Za-z0-9_-]+)"),"total_count":(\d+)\}$/;
/** A record's first bytes: its id member, with the prefix of record ids (line items start `{"id":"accrli_`). */
const RECORD_START = Buffer.from('{"id":"accr_');
const ID_AT = '{"id":"'.length;
const QUOTE = 0x22;

export interface PageScan {
  /** The records' ids, in the page's order: as many as the page has records. */
  ids: string[];
  hasNextPage: boolean;
  nextCursor: string | null;
  totalCount: number;
}

export function scanPage(page: Buffer): PageScan {
  if (page.length < HEAD.length || !page.subarray(0, HEAD.length).equals(HEAD)) {
    throw new Error(`not a page of records: it starts ${JSON.stringify(page.toString('utf8', 0, 40))}`);
  }
  const tailAt = page.lastIndexOf(TAIL_START);
  const tail = tailAt >= HEAD.length ? TAIL.exec(page.toString('latin1', tailAt)) : null;
  if (!tail) {
    throw new Error(
      `not a page of records: it ends ${JSON.stringify(page.toString('utf8', Math.max(0, page.length - 300)))}`,
    );
  }
  const ids: string[] = [];
  for (let at = page.indexOf(RECORD_START, HEAD.length); at !== -1 && at < tailAt;) {
    const end = page.indexOf(QUOTE, at + ID_AT);
    if (end === -1 || end > tailAt) throw new Error('a page of records: a record id runs into the page end');
    // latin1: a fresh one-byte string (not a slice that would keep the whole page alive); ids are ASCII.
    ids.push(page.toString('latin1', at + ID_AT, end));
    at = page.indexOf(RECORD_START, end);
  }
  const hasNextPage = tail[1] === 'true';
  const nextCursor = tail[3] ?? null;
  if (hasNextPage !== (nextCursor !== null)) {
    throw new Error(`a page of records: has_next_page ${hasNextPage} with next_cursor ${tail[2]}`);
  }
  return { ids, hasNextPage, nextCursor, totalCount: Number(tail[4]) };
}

/** The scan of a page against the page parsed: throws where they differ. */
export function checkScan(page: Buffer, scan: PageScan): void {
  const parsed = JSON.parse(page.toString('utf8')) as {
    items: { id: string }[];
    has_next_page: boolean;
    next_cursor: string | null;
    total_count: number;
  };
  const ids = parsed.items.map((r) => r.id);
  const same =
    ids.length === scan.ids.length &&
    ids.every((id, i) => id === scan.ids[i]) &&
    parsed.has_next_page === scan.hasNextPage &&
    parsed.next_cursor === scan.nextCursor &&
    parsed.total_count === scan.totalCount;
  if (!same) {
    throw new Error(
      `the poll's scan of a page differs from the page parsed: ${scan.ids.length} ids and ${scan.nextCursor} scanned, ${ids.length} records and ${parsed.next_cursor} parsed`,
    );
  }
}

/**
 * That a poll saw every record once: each page but the last full, no id twice, as many as the total count the
 * pages gave (the same on every page). Returns the number of records.
 */
export function checkPoll(pages: readonly { ids: readonly string[]; totalCount: number }[], limit: number): number {
  const seen = new Set<string>();
  pages.forEach((page, n) => {
    if (page.ids.length > limit || (n < pages.length - 1 && page.ids.length !== limit)) {
      throw new Error(`poll: page ${n + 1} of ${pages.length} holds ${page.ids.length} records (limit ${limit})`);
    }
    if (page.totalCount !== pages[0]!.totalCount) {
      throw new Error(`poll: page ${n + 1} counts ${page.totalCount} records, the first ${pages[0]!.totalCount}`);
    }
    for (const id of page.ids) {
      if (seen.has(id)) throw new Error(`poll: ${id} seen twice (again on page ${n + 1})`);
      seen.add(id);
    }
  });
  const total = pages[0]?.totalCount ?? 0;
  if (seen.size !== total) throw new Error(`poll: ${seen.size} records seen of ${total}`);
  return seen.size;
}
