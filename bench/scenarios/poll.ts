import { call } from '../lib/api.js';
import type { Bench, Client } from '../lib/context.js';
import type { Captured } from '../lib/capture.js';
import { readFloor } from '../lib/data-floor.js';
import { checkPoll, checkScan, scanPage, type PageScan } from '../lib/poll-page.js';

const LIMIT = 500;

export interface Poll {
  /** Records seen (each once: checkPoll). */
  polled: number;
  /** Records per second of the poll whose client reads each page's end only: the service's figure. */
  rate: number;
  /** Records per second of a client that JSON.parses every page before it asks for the next: reported. */
  parsingRate: number;
  /** A poller's bound: the updated_at of the last record of the page halfway through the records. */
  since: string;
  /** The query strings of every pollEvery-th page, spread over the whole poll: its data floor replays them. */
  sample: string[];
}

async function page(url: string, bearer: string): Promise<Buffer> {
  const res = await fetch(url, { headers: { authorization: `Bearer ${bearer}` } });
  const body = Buffer.from(await res.arrayBuffer());
  if (!res.ok) throw new Error(`GET ${url} → ${res.status} ${body.toString('utf8', 0, 300)}`);
  return body;
}

const lastUpdatedAt = (body: Buffer) =>
  (JSON.parse(body.toString('utf8')) as { items: { updated_at: string }[] }).items.at(-1)!.updated_at;

/** A client that JSON.parses every page before it asks for the next (what an integration does). */
async function parsingPoll(records: string, bearer: string): Promise<{ count: number; rate: number }> {
  const pages: { ids: string[]; totalCount: number }[] = [];
  let next: string | null = null;
  const started = performance.now();
  do {
    // As the poll was measured before issue 16: the text fetched, then parsed (lib/api.ts).
    const answer: { items: { id: string }[]; next_cursor: string | null; total_count: number } = await call(
      `${records}?limit=${LIMIT}${next ? `&cursor=${next}` : ''}`,
      { token: bearer },
    );
    pages.push({ ids: answer.items.map((r) => r.id), totalCount: answer.total_count });
    next = answer.next_cursor;
  } while (next);
  const seconds = (performance.now() - started) / 1000;
  const count = checkPoll(pages, LIMIT);
  return { count, rate: count / seconds };
}

/**
 * A client that does nothing with a page but find its cursor: it reads the page's bytes and scans them for the
 * records' ids and the closing members (lib/poll-page.ts), a small fraction of what JSON.parse of the page costs.
 * Every pollEvery-th page (the sample whose SQL the data floor replays) is kept and parsed after the clock has
 * stopped, to hold the scan to the parse; so is the page halfway through (the queries' updated_at bound).
 */
async function scanningPoll(records: string, bearer: string, total: number): Promise<Omit<Poll, 'parsingRate'>> {
  const pollEvery = Math.max(1, Math.floor(total / LIMIT / 40));
  const sample: string[] = [];
  const scans: PageScan[] = [];
  const kept: { body: Buffer; scan: PageScan }[] = [];
  let halfway: Buffer | null = null;
  let seen = 0;
  let next: string | null = null;
  const started = performance.now();
  do {
    const query = `limit=${LIMIT}${next ? `&cursor=${next}` : ''}`;
    const body = await page(`${records}?${query}`, bearer);
    const scan = scanPage(body);
    if (scans.length % pollEvery === 0) {
      sample.push(query);
      kept.push({ body, scan });
    }
    scans.push(scan);
    seen += scan.ids.length;
    if (seen <= total / 2 && scan.ids.length > 0) halfway = body;
    next = scan.nextCursor;
  } while (next);
  const seconds = (performance.now() - started) / 1000;
  const polled = checkPoll(scans, LIMIT);
  for (const { body, scan } of kept) checkScan(body, scan);
  const since = halfway ? lastUpdatedAt(halfway) : '2000-01-01T00:00:00Z';
  return { polled, rate: polled / seconds, since, sample };
}

/**
 * Full poll: one client following next_cursor through every record, 500 at a time, twice. The figure held to
 * the data floor is the scanning client's, so that the poll's time is the service's (issue 16: the bench's own
 * JSON.parse, in series with the server, was about half of it); the parsing client's is reported beside it. The
 * parsing client goes first: the measured poll then finds the server as warm as the data floor does (which runs
 * after it). Both must see every record once, and the same number.
 */
export async function pollAll(b: Bench, client: Client): Promise<Poll> {
  const records = `${b.server.url}/v3/accounting/records`;
  const parsing = await parsingPoll(records, client.bearer);
  const poll = await scanningPoll(records, client.bearer, b.settings.records);
  if (poll.polled !== parsing.count) {
    throw new Error(`poll: ${poll.polled} records seen, ${parsing.count} by the parsing client`);
  }
  return { ...poll, parsingRate: parsing.rate };
}

/** The poll's lines, against the data floor of its sampled pages (their SQL and JSON, captured). */
export async function addPoll(b: Bench, poll: Poll, pages: readonly Captured[]): Promise<void> {
  const pollFloor = await b.onRaw((raw) => readFloor(raw, pages, b.settings.duration / 2));
  const pageItems = pages.map((p) => (p.answer as { items: unknown[] }).items.length);
  // Pages per second of the sampled pages, times their mean size.
  const floor = pollFloor * (pageItems.reduce((a, b) => a + b, 0) / pageItems.length);
  b.add({
    name: `full poll of ${poll.polled} records through cursors (the client reads each page's cursor, no JSON.parse)`,
    unit: 'records/s',
    throughput: poll.rate,
    floor,
    floorName: 'data',
    maxTimes: 2,
  });
  b.add({
    name: `full poll of ${poll.polled} records through cursors, a client that JSON.parses every page`,
    unit: 'records/s',
    throughput: poll.parsingRate,
    floor,
    floorName: 'data',
    reported: true,
  });
}
