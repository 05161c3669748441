import type { RecordSearchQuery } from '@svc/client';
import { isReviewStatus, isSourceType, type ReviewStatus, type SourceType } from '../../lib/labels';

/** The queue's filters as the URL carries them (dates are UTC days, YYYY-MM-DD; "to" is inclusive). */
export interface QueueFilters {
  /** Free text: id, memo, vendor, invoice or bill number, or amount (the server's search decides the matches). */
  q: string;
  review_status: ReviewStatus | null;
  source_type: SourceType | null;
  posted_from: string;
  posted_to: string;
  amount_min: string;
  amount_max: string;
  vendor: string;
  user: string;
  uncoded: boolean;
  has_export_failure: boolean;
  /** missing: records without any receipt; present: with at least one. */
  receipt: ReceiptFilter | null;
  /** A UTC day: records with an export report that day (the overview's exports per day open the queue so). */
  exported_on: string;
  /** With exported_on: the report's outcome (either when null). */
  export_outcome: ExportOutcome | null;
}

export const EXPORT_OUTCOMES = ['SUCCESS', 'FAILURE'] as const;
export type ExportOutcome = (typeof EXPORT_OUTCOMES)[number];
export const isExportOutcome = (value: string | null | undefined): value is ExportOutcome =>
  value !== null && value !== undefined && (EXPORT_OUTCOMES as readonly string[]).includes(value);

export const RECEIPT_FILTERS = ['missing', 'present'] as const;
export type ReceiptFilter = (typeof RECEIPT_FILTERS)[number];
export const isReceiptFilter = (value: string | null): value is ReceiptFilter =>
  value !== null && (RECEIPT_FILTERS as readonly string[]).includes(value);

export const SORTS = ['updated_at', '-updated_at', 'posted_at', '-posted_at', 'amount', '-amount'] as const;
export type QueueSort = (typeof SORTS)[number];
export type SortColumn = 'updated_at' | 'posted_at' | 'amount';

export const PAGE_SIZES = [10, 25, 50, 100] as const;
const DEFAULT_PAGE_SIZE = 25;

export interface QueueView {
  filters: QueueFilters;
  sort: QueueSort;
  limit: number;
}

export const NO_FILTERS: QueueFilters = {
  q: '',
  review_status: null,
  source_type: null,
  posted_from: '',
  posted_to: '',
  amount_min: '',
  amount_max: '',
  vendor: '',
  user: '',
  uncoded: false,
  has_export_failure: false,
  receipt: null,
  exported_on: '',
  export_outcome: null,
};

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const isDay = (value: string) => DAY.test(value) && !Number.isNaN(Date.parse(`${value}T00:00:00Z`));
const isAmount = (value: string) => value.trim() !== '' && Number.isFinite(Number(value));

function isSort(value: string | null): value is QueueSort {
  return value !== null && (SORTS as readonly string[]).includes(value);
}

/** The view a URL's query names; anything unknown or malformed is left out. */
export function parseQueueView(search: string): QueueView {
  const params = new URLSearchParams(search);
  const text = (name: string) => params.get(name)?.trim() ?? '';
  const day = (name: string) => (isDay(text(name)) ? text(name) : '');
  const amount = (name: string) => (isAmount(text(name)) ? text(name) : '');
  const status = params.get('review_status');
  const source = params.get('source_type');
  const sort = params.get('sort');
  const receipt = params.get('receipt');
  const outcome = params.get('export_outcome');
  const exportedOn = day('exported_on');
  const limit = Number(params.get('limit'));
  return {
    filters: {
      q: text('q'),
      review_status: isReviewStatus(status) ? status : null,
      source_type: isSourceType(source) ? source : null,
      posted_from: day('posted_from'),
      posted_to: day('posted_to'),
      amount_min: amount('amount_min'),
      amount_max: amount('amount_max'),
      vendor: text('vendor'),
      user: text('user'),
      uncoded: params.get('uncoded') === 'true',
      has_export_failure: params.get('has_export_failure') === 'true',
      receipt: isReceiptFilter(receipt) ? receipt : null,
      exported_on: exportedOn,
      export_outcome: exportedOn && isExportOutcome(outcome) ? outcome : null,
    },
    sort: isSort(sort) ? sort : 'updated_at',
    limit: (PAGE_SIZES as readonly number[]).includes(limit) ? limit : DEFAULT_PAGE_SIZE,
  };
}

/** The URL query of a view (without "?"); defaults are left out. */
export function queueSearchString(view: QueueView): string {
  const params = new URLSearchParams();
  const f = view.filters;
  if (f.q.trim()) params.set('q', f.q.trim());
  if (f.review_status) params.set('review_status', f.review_status);
  if (f.source_type) params.set('source_type', f.source_type);
  for (const name of ['posted_from', 'posted_to', 'amount_min', 'amount_max', 'vendor', 'user'] as const) {
    if (f[name].trim()) params.set(name, f[name].trim());
  }
  if (f.uncoded) params.set('uncoded', 'true');
  if (f.has_export_failure) params.set('has_export_failure', 'true');
  if (f.receipt) params.set('receipt', f.receipt);
  if (f.exported_on) params.set('exported_on', f.exported_on);
  if (f.exported_on && f.export_outcome) params.set('export_outcome', f.export_outcome);
  if (view.sort !== 'updated_at') params.set('sort', view.sort);
  if (view.limit !== DEFAULT_PAGE_SIZE) params.set('limit', String(view.limit));
  return params.toString();
}

function nextDay(day: string): string {
  const date = new Date(`${day}T00:00:00Z`);
  date.setUTCDate(date.getUTCDate() + 1);
  return date.toISOString().slice(0, 10);
}

/**
 * The search request of a view's page (the service checks every value again). Single entry: the lines the rows'
 * coding summaries are made of.
 */
export function searchQuery(view: QueueView, cursor: string | undefined): RecordSearchQuery {
  const f = view.filters;
  const query: RecordSearchQuery = { sort: view.sort, limit: view.limit, single_entry: true };
  if (f.q) query.q = f.q;
  if (f.review_status) query.review_status = f.review_status;
  if (f.source_type) query.source_type = f.source_type;
  if (f.posted_from) query['posted_at[gte]'] = `${f.posted_from}T00:00:00Z`;
  if (f.posted_to) query['posted_at[lt]'] = `${nextDay(f.posted_to)}T00:00:00Z`;
  if (f.amount_min) query['amount[gte]'] = Number(f.amount_min);
  if (f.amount_max) query['amount[lte]'] = Number(f.amount_max);
  if (f.vendor) query.vendor = f.vendor;
  if (f.user) query.user = f.user;
  if (f.uncoded) query.uncoded = true;
  if (f.has_export_failure) query.has_export_failure = true;
  if (f.receipt) query.receipt = f.receipt;
  if (f.exported_on) query.exported_on = f.exported_on;
  if (f.exported_on && f.export_outcome) query.export_outcome = f.export_outcome;
  if (cursor) query.cursor = cursor;
  return query;
}

export function hasFilters(filters: QueueFilters): boolean {
  return JSON.stringify(filters) !== JSON.stringify(NO_FILTERS);
}

/** The sort a click on a column's header asks for: ascending first, then the other way. */
export function nextSort(current: QueueSort, column: SortColumn): QueueSort {
  if (current === column) return `-${column}`;
  return column;
}

export function sortDirection(current: QueueSort, column: SortColumn): 'ascending' | 'descending' | null {
  if (current === column) return 'ascending';
  if (current === `-${column}`) return 'descending';
  return null;
}
