import type { SavedViewFilters } from '@svc/client';
import { isReviewStatus, isSourceType } from '../../lib/labels';
import {
  isExportOutcome,
  isReceiptFilter,
  NO_FILTERS,
  queueSearchString,
  searchQuery,
  SORTS,
  type QueueSort,
  type QueueView,
} from './queue-params';

/** A view's filters and sort as the service keeps them: the search query's members, without its paging. */
export function savedFiltersOf(view: QueueView): SavedViewFilters {
  const { limit: _limit, single_entry: _single, cursor: _cursor, ...filters } = searchQuery(view, undefined);
  return filters;
}

function dayBefore(instant: string): string {
  const date = new Date(instant);
  date.setUTCDate(date.getUTCDate() - 1);
  return date.toISOString().slice(0, 10);
}

const isSort = (value: string | undefined): value is QueueSort =>
  value !== undefined && (SORTS as readonly string[]).includes(value);

/** The queue's view of saved filters (the page size is the one on screen): the inverse of savedFiltersOf. */
export function viewOfSaved(filters: SavedViewFilters, limit: number): QueueView {
  const amount = (value: number | undefined) => (value === undefined ? '' : String(value));
  const status = filters.review_status ?? null;
  const source = filters.source_type ?? null;
  const receipt = filters.receipt ?? null;
  return {
    filters: {
      ...NO_FILTERS,
      q: filters.q ?? '',
      review_status: isReviewStatus(status) ? status : null,
      source_type: isSourceType(source) ? source : null,
      posted_from: filters['posted_at[gte]']?.slice(0, 10) ?? '',
      posted_to: filters['posted_at[lt]'] ? dayBefore(filters['posted_at[lt]']) : '',
      amount_min: amount(filters['amount[gte]']),
      amount_max: amount(filters['amount[lte]']),
      vendor: filters.vendor ?? '',
      user: filters.user ?? '',
      uncoded: filters.uncoded === true,
      has_export_failure: filters.has_export_failure === true,
      receipt: isReceiptFilter(receipt) ? receipt : null,
      exported_on: filters.exported_on ?? '',
      export_outcome: filters.exported_on && isExportOutcome(filters.export_outcome) ? filters.export_outcome : null,
    },
    sort: isSort(filters.sort) ? filters.sort : 'updated_at',
    limit,
  };
}

/** The queue's address of saved filters. */
export function savedViewHref(filters: SavedViewFilters, limit: number): string {
  const query = queueSearchString(viewOfSaved(filters, limit));
  return query ? `/queue?${query}` : '/queue';
}
