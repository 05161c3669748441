import { fromMinor } from '../accounting/accounting.service.js';
import {
  bookedTo,
  type HistoryRecord,
  type SuggestionSubject,
  type TypeHistoryRecord,
} from '../accounting/suggestion-coding.service.js';

/**
 * How a value is chosen (docs/suggestions.md): plain counting over bounded samples of the account's approved
 * history, strongest signal first; no randomness, no outside service. The same history gives the same answer.
 */

/** What a suggestion was learned from, strongest first. */
export const SIGNALS = ['VENDOR', 'USER', 'MEMO', 'AMOUNT', 'RECORD_TYPE'] as const;
export type Signal = (typeof SIGNALS)[number];

/** How many approved records each history read takes at most (the newest posted). */
export const HISTORY_LIMIT = 50;

/** A signal's share of agreement is scaled by how telling the signal is: a vendor tells most. */
export const WEIGHTS: Readonly<Record<Signal, number>> = {
  VENDOR: 1,
  USER: 0.8,
  MEMO: 0.7,
  AMOUNT: 0.6,
  RECORD_TYPE: 0.5,
};

/**
 * The least number of records coded in the field a signal needs to speak. A vendor's one past record speaks (it
 * is the strongest signal there is); the weaker signals need three, and a majority.
 */
const MIN_RECORDS: Readonly<Record<Signal, number>> = { VENDOR: 1, USER: 3, MEMO: 3, AMOUNT: 3, RECORD_TYPE: 3 };

/** Records of the history that share something with the subject: one signal's evidence. */
export interface Sample {
  signal: Signal;
  /** What the records are, for a reason: `record` or `CARD_EXPENSE_POST record`, and `of vendor Uber`. */
  noun: string;
  qualifier: string;
  /** Newest posted first. */
  records: readonly HistoryRecord[];
}

/** The value a sample chose for a field, and how strongly. */
export interface Choice {
  signal: Signal;
  noun: string;
  qualifier: string;
  svc_id: string;
  /** Records of the sample coded with the value. */
  matching: number;
  /** Records of the sample coded in the field at all. */
  of: number;
  confidence: number;
}

const STOP_WORDS = new Set(['the', 'and', 'for', 'with', 'from', 'of', 'to', 'in', 'on', 'at', 'by', 'inv', 'invoice']);

/** The memo's words: runs of at least three letters or digits, with a letter, lower-cased, in order, once each. */
export function memoWords(memo: string | null): string[] {
  const words = (memo ?? '').toLowerCase().match(/[\p{L}\p{N}]{3,}/gu) ?? [];
  return [...new Set(words.filter((w) => /\p{L}/u.test(w) && !STOP_WORDS.has(w)))];
}

/** A history record's memo words, worked out once however many subjects of a grid page look at it. */
const WORDS = new WeakMap<TypeHistoryRecord, string[]>();
function wordsOf(record: TypeHistoryRecord): string[] {
  let words = WORDS.get(record);
  if (!words) {
    words = memoWords(record.memo);
    WORDS.set(record, words);
  }
  return words;
}

/** The decade of minor units an amount falls in: [10^k, 10^(k+1)), or [0, 1) for nothing. */
function bandOf(minor: number): { lo: number; hi: number } {
  if (minor < 1) return { lo: 0, hi: 1 };
  const lo = 10 ** Math.floor(Math.log10(minor));
  return { lo, hi: lo * 10 };
}

/**
 * The subject's samples, strongest first: its vendor's records, its user's, then among the records of its type
 * those whose memo shares a word with its memo, those in its amount band (same currency), and all of them.
 */
export function samplesOf(
  subject: SuggestionSubject,
  history: { vendor: readonly HistoryRecord[]; user: readonly HistoryRecord[]; type: readonly TypeHistoryRecord[] },
): Sample[] {
  // The history as read when the subject is not in it (the usual case): samples that share it share its work.
  const others = <R extends HistoryRecord>(records: readonly R[]) =>
    records.some((r) => r.id === subject.id) ? records.filter((r) => r.id !== subject.id) : records;
  const samples: Sample[] = [];
  if (subject.vendor_name !== null) {
    // The vendor's records that book where the subject does (a payment to cash, not to the bill's expense); when
    // all of them do (the usual case), the vendor's whole history, shared with the page's other records.
    const vendor = others(history.vendor);
    const side = bookedTo(subject.type);
    const alike = vendor.every((r) => bookedTo(r.type) === side)
      ? vendor
      : vendor.filter((r) => bookedTo(r.type) === side);
    const qualifier = `of vendor ${subject.vendor_name}${alike === vendor ? '' : ` booked to ${side}`}`;
    samples.push({ signal: 'VENDOR', noun: 'record', qualifier, records: alike });
  }
  if (subject.user_email !== null) {
    const qualifier = `of user ${subject.user_email}`;
    samples.push({ signal: 'USER', noun: 'record', qualifier, records: others(history.user) });
  }
  const ofType = others(history.type);
  const noun = `${subject.type} record`;
  const words = memoWords(subject.memo);
  if (words.length > 0) {
    const sharing = ofType.filter((r) => wordsOf(r).some((w) => words.includes(w)));
    const shared = words.filter((w) => sharing.some((r) => wordsOf(r).includes(w))).slice(0, 3);
    samples.push({
      signal: 'MEMO',
      noun,
      qualifier: `with ${shared.map((w) => `"${w}"`).join(' or ') || 'its words'} in the memo`,
      records: sharing,
    });
  }
  const band = bandOf(subject.amount_minor);
  const inBand = ofType.filter(
    (r) => r.currency === subject.currency && r.amount_minor >= band.lo && r.amount_minor < band.hi,
  );
  const lo = fromMinor(band.lo, subject.currency).amount;
  const hi = fromMinor(band.hi, subject.currency).amount;
  samples.push({
    signal: 'AMOUNT',
    noun,
    qualifier: `of ${lo} to under ${hi} ${subject.currency}`,
    records: inBand,
  });
  samples.push({ signal: 'RECORD_TYPE', noun, qualifier: '', records: ofType });
  return samples;
}

const round = (x: number) => Math.round(x * 10000) / 10000;

/**
 * A sample's choice for `fieldId`, or null when it does not speak. Its value is the one most of its records coded
 * in the field were coded with, among the values `usable` allows; a tie goes to the value of the newest record,
 * then to the smaller svc_id. It speaks when enough of its records are coded in the field and (but for the
 * vendor's) its value holds a majority of them; confidence = matching / of × the signal's weight.
 */
function choiceOf(sample: Sample, fieldId: string, usable: (svcId: string) => boolean): Choice | null {
  const tally = new Map<string, { n: number; newest: number }>();
  let of = 0;
  sample.records.forEach((record, at) => {
    const values = record.values.filter((v) => v.field_id === fieldId);
    if (values.length === 0) return;
    of += 1;
    for (const v of values) {
      const t = tally.get(v.svc_id) ?? { n: 0, newest: at };
      t.n += 1;
      tally.set(v.svc_id, t);
    }
  });
  if (of < MIN_RECORDS[sample.signal]) return null;
  const [top] = [...tally]
    .filter(([svcId]) => usable(svcId))
    .sort(([a, x], [b, y]) => y.n - x.n || x.newest - y.newest || (a < b ? -1 : a > b ? 1 : 0));
  if (!top) return null;
  const [svcId, { n }] = top;
  if (sample.signal !== 'VENDOR' && n * 2 <= of) return null;
  return {
    signal: sample.signal,
    noun: sample.noun,
    qualifier: sample.qualifier,
    svc_id: svcId,
    matching: n,
    of,
    confidence: round((n / of) * WEIGHTS[sample.signal]),
  };
}

/**
 * The value suggested for `fieldId`, or null: of the samples that speak, the choice with the highest confidence;
 * on a tie, the stronger signal's (samples come strongest first). So a field the vendor tells (a GL account)
 * follows the vendor, and one the user tells better (a department) follows the user.
 */
export function choose(samples: readonly Sample[], fieldId: string, usable: (svcId: string) => boolean): Choice | null {
  return chooser((_, svcId) => usable(svcId)).choose(samples, fieldId);
}

/** The samples taken whole from a history read (not filtered for one subject): those a grid page's records share. */
const SHARED: ReadonlySet<Signal> = new Set<Signal>(['VENDOR', 'USER', 'RECORD_TYPE']);

/** The ids of the fields the records are coded in, once each (in no particular order). */
function fieldsIn(records: readonly HistoryRecord[]): string[] {
  const ids = new Set<string>();
  for (const r of records) for (const v of r.values) ids.add(v.field_id);
  return [...ids];
}

/**
 * Every record of the subjects' samples, once each. Samples taken whole from one history read are one array, walked
 * once; a memo's or an amount band's records are among the record type's (samplesOf), so they add none.
 */
export function recordsIn(sampled: readonly (readonly Sample[])[]): Set<HistoryRecord> {
  const arrays = new Set<readonly HistoryRecord[]>();
  const records = new Set<HistoryRecord>();
  for (const samples of sampled) {
    for (const sample of samples) {
      if (!SHARED.has(sample.signal) || arrays.has(sample.records)) continue;
      arrays.add(sample.records);
      for (const r of sample.records) records.add(r);
    }
  }
  return records;
}

/**
 * `choose` and the fields of a subject's samples for one request, remembering what samples made of the same
 * history array share (a grid page's records of one vendor, one user, one type): a choice depends only on the
 * sample's records, signal, words and the field, so it is worked out once per request, not once per record.
 * Samples filtered for one subject (memo words, amount band) are new arrays and are never shared.
 */
export function chooser(usable: (fieldId: string, svcId: string) => boolean) {
  const choices = new WeakMap<readonly HistoryRecord[], Map<string, Choice | null>>();
  const fields = new WeakMap<readonly HistoryRecord[], string[]>();
  const choiceFor = (sample: Sample, fieldId: string) => {
    if (!SHARED.has(sample.signal)) return choiceOf(sample, fieldId, (svcId) => usable(fieldId, svcId));
    let known = choices.get(sample.records);
    if (!known) choices.set(sample.records, (known = new Map()));
    const key = `${sample.signal}\u0000${sample.noun}\u0000${sample.qualifier}\u0000${fieldId}`;
    let choice = known.get(key);
    if (choice === undefined) {
      choice = choiceOf(sample, fieldId, (svcId) => usable(fieldId, svcId));
      known.set(key, choice);
    }
    return choice;
  };
  return {
    choose(samples: readonly Sample[], fieldId: string): Choice | null {
      let best: Choice | null = null;
      for (const sample of samples) {
        const choice = choiceFor(sample, fieldId);
        if (choice && (!best || choice.confidence > best.confidence)) best = choice;
      }
      return best;
    },
    /** The fields any of the samples' records is coded in, sorted (the fields' ids sort in creation order). */
    fieldsOf(samples: readonly Sample[]): string[] {
      const ids = new Set<string>();
      for (const sample of samples) {
        // A memo's or an amount band's records are among the record type's (samplesOf): no field of their own.
        if (!SHARED.has(sample.signal)) continue;
        let known = fields.get(sample.records);
        if (!known) fields.set(sample.records, (known = fieldsIn(sample.records)));
        for (const id of known) ids.add(id);
      }
      return [...ids].sort();
    },
  };
}

/** The reason of a choice in words: "23 of the last 25 records of vendor Uber were coded 6010 Travel". */
export function reasonOf(choice: Choice, valueName: string): string {
  const what = (noun: string) => [noun, choice.qualifier].filter((x) => x !== '').join(' ');
  return choice.of === 1
    ? `The last ${what(choice.noun)} was coded ${valueName}`
    : `${choice.matching} of the last ${choice.of} ${what(`${choice.noun}s`)} were coded ${valueName}`;
}
