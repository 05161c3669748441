import type { Db } from '../../db/database.js';
import { codingsOf, DEMO_FIELDS, demoRecords, demoValueName, draftSource } from '../../cli/seed-data.js';
import { nowMicros } from '../../lib/clock.js';
import type { Caller } from '../auth/auth.service.js';
import { ingestService } from '../accounting/ingest.service.js';
import { fieldValuesService } from '../field-values/field-values.service.js';
import { fieldsService } from '../fields/fields.service.js';

/** The API's own batch limit for values. */
const VALUE_BATCH = 1000;
const DAY = 24 * 3600 * 1_000_000;
/** bills-due: each bill's due date in days from now (negative: overdue), three bills each. */
const BILL_DUE_DAYS = [-10, -3, -1, 0, 1, 3, 7, 14, 30] as const;
const FAILED_EXPORT = {
  status: 'FAILURE' as const,
  reference_id: null,
  deep_link_url: null,
  error_message: 'Invalid GL account',
};

export const SCENARIOS = {
  empty: 'Nothing: an account with its client alone.',
  'review-states':
    'The demo chart (GL Account, Department, Location, Class; 40 values) and 76 records: every record type in every review state, some exported, some with a failed export.',
  'month-of-card-spend':
    'The demo chart and 200 card records (every card type) posted over the last 30 days, waiting in PREPARE, REVIEW and READY_FOR_EXPORT.',
  'export-failures':
    'The demo chart; 20 records READY_FOR_EXPORT (to report, and fail) and 10 back in REVIEW whose last export failed ("Invalid GL account").',
  'chart-of-accounts-10k': 'One field, GL Account, with 10,000 values (“6000 Travel” … “105990 Training”); no records.',
  'bills-due':
    'The demo chart and 27 bills whose due dates fall around now: overdue by 10, 3 and 1 days, due today, and due in 1, 3, 7, 14 and 30 days, three of each, in PREPARE, REVIEW and READY_FOR_EXPORT.',
} as const;
export type ScenarioName = keyof typeof SCENARIOS;
const isScenario = (name: string): name is ScenarioName => Object.prototype.hasOwnProperty.call(SCENARIOS, name);
export const SCENARIO_NAMES: readonly ScenarioName[] = Object.keys(SCENARIOS).filter(isScenario);

export interface ScenarioSummary {
  name: ScenarioName;
  seed: number;
  fields: { svc_id: string; name: string; remote_id: string | null; values: number }[];
  records: number;
}

type Draft = ReturnType<ReturnType<typeof demoRecords>>;

/** The demo fields with `valuesEach` values per field (chart: GL Account alone). */
async function makeChart(db: Db, caller: Caller, specs: readonly (typeof DEMO_FIELDS)[number][], values: number) {
  return db.write(async (ex) => {
    const made = [];
    for (const spec of specs) {
      const field = await fieldsService.create(ex, caller, {
        name: spec.name,
        group: 'ACCOUNTING',
        remote_id: spec.remote,
      });
      const created = [];
      for (let i = 0; i < values; i += VALUE_BATCH) {
        const items = Array.from({ length: Math.min(VALUE_BATCH, values - i) }, (_, k) => ({
          value: demoValueName(spec, i + k),
          remote_id: `${spec.remote}-${i + k + 1}`,
        }));
        created.push(...(await fieldValuesService.create(ex, caller, field.svc_id, items)).items);
      }
      made.push({ field, values: created });
    }
    return made;
  });
}

/** Drafts `draft(0)`, `draft(1)`, … kept by `keep` (and changed by it) until `n` are kept. */
function pickDrafts(draft: (n: number) => Draft, n: number, keep: (d: Draft, i: number) => Draft | null): Draft[] {
  const kept: Draft[] = [];
  for (let i = 0; kept.length < n && i < n * 50; i++) {
    const d = keep(draft(i), kept.length);
    if (d) kept.push(d);
  }
  return kept;
}

/**
 * Lays the scenario's data into the caller's account, through the services real data goes through (fields and
 * values as the API creates them; records as an imported history, as `svc seed` writes them). The same seed
 * makes the same data: names, remote ids, types, states, amounts, codings and source ids (the svc ids and times
 * are new each time).
 */
export async function applyScenario(
  db: Db,
  caller: Caller,
  name: ScenarioName,
  seed: number,
): Promise<ScenarioSummary> {
  const now = nowMicros();
  const summary = (chart: Awaited<ReturnType<typeof makeChart>>, records: number): ScenarioSummary => ({
    name,
    seed,
    fields: chart.map(({ field, values }) => ({
      svc_id: field.svc_id,
      name: field.name,
      remote_id: field.remote_id,
      values: values.length,
    })),
    records,
  });
  if (name === 'empty') return summary([], 0);
  if (name === 'chart-of-accounts-10k') return summary(await makeChart(db, caller, [DEMO_FIELDS[0]], 10_000), 0);

  const chart = await makeChart(db, caller, DEMO_FIELDS, 10);
  const draft = demoRecords(
    seed,
    now,
    chart.map(({ field, values }) => codingsOf(field, values)),
  );
  let drafts: Draft[];
  if (name === 'review-states') {
    // 19 types × 4 states: the i-th record is the (i mod 19)-th type in the state its row of types is shifted to.
    // (Seed's own formula, (n + ⌊n/19⌋) mod 4, is t mod 4 for the type t: one state per type; so states are set here.)
    const states = ['PREPARE', 'REVIEW', 'READY_FOR_EXPORT', 'EXPORTED'] as const;
    drafts = Array.from({ length: 76 }, (_, i) => {
      const d = draft(i);
      const reviewStatus = states[((i % 19) + Math.floor(i / 19)) % 4]!;
      const failed = reviewStatus === 'REVIEW' && i % 3 === 0;
      return {
        ...d,
        reviewStatus,
        lastExport:
          reviewStatus === 'EXPORTED'
            ? {
                status: 'SUCCESS' as const,
                reference_id: `erp_${i}`,
                deep_link_url: `https://erp.example.invalid/txn/${i}`,
                error_message: null,
              }
            : failed
              ? FAILED_EXPORT
              : null,
        version: 1 + states.indexOf(reviewStatus) + (failed ? 3 : 0),
      };
    });
  } else if (name === 'month-of-card-spend') {
    const states = ['PREPARE', 'REVIEW', 'READY_FOR_EXPORT'] as const;
    drafts = pickDrafts(draft, 200, (d, i) => {
      if (draftSource(d) !== 'CARD') return null;
      const reviewStatus = states[i % states.length]!;
      const postedAt = now - 30 * DAY + Math.floor((i * 30 * DAY) / 200);
      return {
        ...d,
        reviewStatus,
        postedAt,
        erpPostingDate: postedAt,
        lastExport: null,
        version: 1 + states.indexOf(reviewStatus),
      };
    });
  } else if (name === 'bills-due') {
    const states = ['PREPARE', 'REVIEW', 'READY_FOR_EXPORT'] as const;
    drafts = pickDrafts(draft, BILL_DUE_DAYS.length * 3, (d, i) => {
      if (draftSource(d) !== 'BILL') return null;
      const reviewStatus = states[i % states.length]!;
      const dueAt = now + BILL_DUE_DAYS[Math.floor(i / 3)]! * DAY;
      return {
        ...d,
        reviewStatus,
        postedAt: Math.min(now, dueAt) - 30 * DAY,
        erpPostingDate: Math.min(now, dueAt) - 30 * DAY,
        dueAt,
        lastExport: null,
        version: 1 + states.indexOf(reviewStatus),
      };
    });
  } else {
    drafts = pickDrafts(draft, 30, (d, i) =>
      draftSource(d) === 'BILL'
        ? null
        : i < 20
          ? { ...d, reviewStatus: 'READY_FOR_EXPORT', lastExport: null, version: 3 }
          : {
              ...d,
              reviewStatus: 'REVIEW',
              lastExport: FAILED_EXPORT,
              version: 5,
            },
    );
  }
  await db.write((ex) => ingestService.importRecords(ex, caller, drafts));
  return summary(chart, drafts.length);
}
