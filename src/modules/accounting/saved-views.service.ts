import type { Executor } from '../../db/database.js';
import { errors } from '../../errors.js';
import { newId } from '../../lib/ids.js';
import { microsToIso, nowMicros } from '../../lib/clock.js';
import type { AuthContext, Caller } from '../auth/auth.service.js';
import { userNamesService } from '../users/user-names.service.js';
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

/** Sharing a view with the account is an account admin's choice. */
const SHARE_SCOPE = 'account.admin';

/**
 * Saved views of the review queue (docs/console.md, "Saved views"): the signed-in user's own, and those colleagues
 * shared with the account. A private view of another user, or any view of another account, is never read (404);
 * only its owner changes or deletes a view (a colleague's shared one: 403).
 */
function ownerOf(caller: Caller) {
  if (caller.actor.type !== 'user') throw errors.internal();
  return { account_id: caller.accountId, user_id: caller.actor.id };
}

const nameKey = (name: string) => name.trim().toLowerCase();

async function toDtos(ex: Executor, caller: Caller, rows: SavedViewsTable[]): Promise<SavedViewDto[]> {
  const me = ownerOf(caller).user_id;
  const names = await userNamesService.namesOf(
    ex,
    caller.accountId,
    rows.map((r) => r.user_id),
  );
  return rows.map((row) => {
    // Written by create() or change() from filters their schema and checkFilters accepted.
    const filters: SavedViewFiltersInput = JSON.parse(row.filters_json);
    return {
      id: row.id,
      name: row.name,
      filters,
      shared: Number(row.shared) === 1,
      owner: { user_id: row.user_id, name: names.get(row.user_id) ?? null },
      mine: row.user_id === me,
      created_at: microsToIso(Number(row.created_at)),
      updated_at: microsToIso(Number(row.updated_at)),
    };
  });
}

/** What the schema cannot say: the same rule the search applies to its query, pointed at the body. */
const checkFilters = (filters: SavedViewFiltersInput) => checkSearchBounds(filters, '/filters');

function checkSharing(auth: AuthContext, shared: boolean | undefined): void {
  if (shared !== true || auth.scopes.has(SHARE_SCOPE)) return;
  throw auth.role === undefined
    ? errors.insufficientScope([SHARE_SCOPE])
    : errors.roleForbidden(auth.role, [SHARE_SCOPE]);
}

const nameTaken = (name: string, existing: SavedViewsTable | undefined) =>
  errors.conflict(`You have a saved view named “${name.trim()}” already: choose another name.`, {
    name: name.trim(),
    ...(existing ? { saved_view_id: existing.id } : {}),
  });

/** The caller's own view, to change: 404 when they do not see it, 403 when it is a colleague's shared one. */
async function ownView(ex: Executor, caller: Caller, id: string): Promise<SavedViewsTable> {
  const owner = ownerOf(caller);
  const row = await repo.findVisible(ex, owner, id);
  if (!row) throw errors.notFound(`Saved view ${id}`, { saved_view_id: id });
  if (row.user_id !== owner.user_id) throw errors.savedViewNotYours(id, row.user_id);
  return row;
}

export const savedViewsService = {
  async list(ex: Executor, caller: Caller): Promise<{ items: SavedViewDto[] }> {
    return { items: await toDtos(ex, caller, await repo.list(ex, ownerOf(caller))) };
  },

  async create(ex: Executor, auth: AuthContext, input: SavedViewInput): Promise<SavedViewDto> {
    checkFilters(input.filters);
    checkSharing(auth, input.shared);
    const owner = ownerOf(auth);
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
      shared: input.shared ? 1 : 0,
      created_at: now,
      updated_at: now,
    };
    if (!(await repo.insert(ex, row))) throw nameTaken(input.name, undefined);
    return (await toDtos(ex, auth, [row]))[0]!;
  },

  /** A new name, new filters, shared or not: any of them. */
  async change(ex: Executor, auth: AuthContext, id: string, input: SavedViewChange): Promise<SavedViewDto> {
    if (input.filters) checkFilters(input.filters);
    const row = await ownView(ex, auth, id);
    checkSharing(auth, input.shared);
    const next: SavedViewsTable = { ...row, updated_at: nowMicros() };
    if (input.name !== undefined) {
      const key = nameKey(input.name);
      const clash = await repo.findByName(ex, ownerOf(auth), key);
      if (clash && clash.id !== id) throw nameTaken(input.name, clash);
      next.name = input.name.trim();
      next.name_key = key;
    }
    if (input.filters) next.filters_json = JSON.stringify(input.filters);
    if (input.shared !== undefined) next.shared = input.shared ? 1 : 0;
    if (!(await repo.update(ex, next))) throw nameTaken(next.name, undefined);
    return (await toDtos(ex, auth, [next]))[0]!;
  },

  async delete(ex: Executor, caller: Caller, id: string): Promise<Record<string, never>> {
    await ownView(ex, caller, id);
    await repo.delete(ex, ownerOf(caller), id);
    return {};
  },
};
