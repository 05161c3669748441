import { call } from '../lib/api.js';
import type { Bench, Client } from '../lib/context.js';
import type { Captured } from '../lib/capture.js';
import { readFloor } from '../lib/data-floor.js';

export interface Poll {
  /** Records seen. */
  polled: number;
  /** Records per second. */
  rate: number;
  /** A poller's bound: the updated_at of the last record of the page halfway through the records. */
  since: string;
  /** The query strings of every pollEvery-th page, spread over the whole poll: its data floor replays them. */
  sample: string[];
}

/** Full poll: one client following next_cursor through every record, 500 at a time. */
export async function pollAll(b: Bench, client: Client): Promise<Poll> {
  const RECORDS = b.settings.records;
  const records = `${b.server.url}/v3/accounting/records`;
  const pollStart = performance.now();
  let polled = 0;
  let next: string | null = null;
  let since = '2000-01-01T00:00:00Z';
  const pollEvery = Math.max(1, Math.floor(RECORDS / 500 / 40));
  const sample: string[] = [];
  let pageNo = 0;
  do {
    if (pageNo++ % pollEvery === 0) sample.push(`limit=500${next ? `&cursor=${next}` : ''}`);
    const page: { items: { updated_at: string }[]; next_cursor: string | null } = await call(
      `${records}?limit=500${next ? `&cursor=${next}` : ''}`,
      { token: client.bearer },
    );
    polled += page.items.length;
    if (polled <= RECORDS / 2 && page.items.length > 0) since = page.items[page.items.length - 1]!.updated_at;
    next = page.next_cursor;
  } while (next);
  return { polled, rate: polled / ((performance.now() - pollStart) / 1000), since, sample };
}

/** The poll's line, against the data floor of its sampled pages (their SQL and JSON, captured). */
export async function addPoll(b: Bench, poll: Poll, pages: readonly Captured[]): Promise<void> {
  const pollFloor = await b.onRaw((raw) => readFloor(raw, pages, b.settings.duration / 2));
  const pageItems = pages.map((p) => (p.answer as { items: unknown[] }).items.length);
  b.add({
    name: `full poll of ${poll.polled} records through cursors`,
    unit: 'records/s',
    throughput: poll.rate,
    // Pages per second of the sampled pages, times their mean size.
    floor: pollFloor * (pageItems.reduce((a, b) => a + b, 0) / pageItems.length),
    floorName: 'data',
    maxTimes: 2,
  });
}
