import type { Executor } from '../../db/database.js';
import { errors } from '../../errors.js';
import { newId } from '../../lib/ids.js';
import { microsToIso, nowMicros } from '../../lib/clock.js';
import type { Caller } from '../auth/auth.service.js';
import { savedViewsRepository as repo } from './saved-views.repository.js';
import {
  MAX_SAVED_VIEWS,
  type SavedViewChange,
  type SavedViewDto,
  type SavedViewFiltersInput,
  type SavedViewInput,
} from './saved-views.schemas.js';
import type { SavedViewsTable } from './saved-views.tables.js';
import { checkSearchBounds } from './search.service.js';

/**
 * Saved views of the review queue (docs/console.md, "Saved views"): the signed-in user's own. Nobody else's view
 * is ever read, changed or deleted: every statement is keyed by (account, user), and another's id is 404.
 */
function ownerOf(caller: Caller) {
  if (caller.actor.type !== 'user') throw errors.internal();
  return { account_id: caller.accountId, user_id: caller.actor.id };
}

const nameKey = (name: string) => name.trim().toLowerCase();

function toDto(row: SavedViewsTable): SavedViewDto {
  // Written by create() or change() from filters their schema and checkFilters accepted.
  const filters: SavedViewFiltersInput = JSON.parse(row.filters_json);
  return {
    id: row.id,
    name: row.name,
    filters,
    created_at: microsToIso(Number(row.created_at)),
    updated_at: microsToIso(Number(row.updated_at)),
  };
}

/** What the schema cannot say: the same rule the search applies to its query, pointed at the body. */
const checkFilters = (filters: SavedViewFiltersInput) => checkSearchBounds(filters, '/filters');

const nameTaken = (name: string, existing: SavedViewsTable | undefined) =>
  errors.conflict(`You have a saved view named “${name.trim()}” already: choose another name.`, {
    name: name.trim(),
    ...(existing ? { saved_view_id: existing.id } : {}),
  });

const notFound = (id: string) => errors.notFound(`Saved view ${id}`, { saved_view_id: id });

export const savedViewsService = {
  async list(ex: Executor, caller: Caller): Promise<{ items: SavedViewDto[] }> {
    return { items: (await repo.list(ex, ownerOf(caller))).map(toDto) };
  },

  async create(ex: Executor, caller: Caller, input: SavedViewInput): Promise<SavedViewDto> {
    checkFilters(input.filters);
    const owner = ownerOf(caller);
    const key = nameKey(input.name);
    const clash = await repo.findByName(ex, owner, key);
    if (clash) throw nameTaken(input.name, clash);
    if ((await repo.count(ex, owner)) >= MAX_SAVED_VIEWS) {
      throw errors.conflict(`You have ${MAX_SAVED_VIEWS} saved views, the most there may be: delete one first.`, {
        max_saved_views: MAX_SAVED_VIEWS,
      });
    }
    const now = nowMicros();
    const row: SavedViewsTable = {
      ...owner,
      id: newId('svw'),
      name: input.name.trim(),
      name_key: key,
      filters_json: JSON.stringify(input.filters),
      created_at: now,
      updated_at: now,
    };
    if (!(await repo.insert(ex, row))) throw nameTaken(input.name, undefined);
    return toDto(row);
  },

  /** A new name, new filters, or both. */
  async change(ex: Executor, caller: Caller, id: string, input: SavedViewChange): Promise<SavedViewDto> {
    if (input.filters) checkFilters(input.filters);
    const owner = ownerOf(caller);
    const row = await repo.find(ex, owner, id);
    if (!row) throw notFound(id);
    const next: SavedViewsTable = { ...row, updated_at: nowMicros() };
    if (input.name !== undefined) {
      const key = nameKey(input.name);
      const clash = await repo.findByName(ex, owner, key);
      if (clash && clash.id !== id) throw nameTaken(input.name, clash);
      next.name = input.name.trim();
      next.name_key = key;
    }
    if (input.filters) next.filters_json = JSON.stringify(input.filters);
    if (!(await repo.update(ex, next))) throw nameTaken(next.name, undefined);
    return toDto(next);
  },

  async delete(ex: Executor, caller: Caller, id: string): Promise<Record<string, never>> {
    if ((await repo.delete(ex, ownerOf(caller), id)) === 0) throw notFound(id);
    return {};
  },
};
