import { Type, type Static } from 'typebox';
import { Nullable, Timestamp } from '../../http/schemas.js';
import { RecordSearchQuery } from './search.schemas.js';

/** The most views one user may keep (409 CONFLICT beyond: delete one first). */
export const MAX_SAVED_VIEWS = 100;

const Id = Type.String({ minLength: 1, maxLength: 255, description: 'The saved view id' });
const Name = Type.String({
  minLength: 1,
  maxLength: 100,
  pattern: '\\S',
  description: 'What the user calls the view; trimmed, unique among their views without regard to case',
});

/**
 * A view's filters: the review queue's search query (GET /internal/v1/accounting/records) as JSON, its paging
 * left out; checked by the same schema, so a view always opens as a valid search.
 */
export const SavedViewFilters = Type.Omit(RecordSearchQuery, ['cursor', 'limit', 'single_entry'], {
  title: 'SavedViewFilters',
  additionalProperties: false,
  description: "The review queue's search filters and sort, as GET /internal/v1/accounting/records takes them",
});

export const SavedViewParams = Type.Object({ view_id: Id }, { additionalProperties: false });

const Shared = Type.Boolean({
  description:
    'true: every user of the account sees the view (only an account admin, scope account.admin, may share one); false: its owner alone',
});

export const SavedViewBody = Type.Object(
  { name: Name, filters: SavedViewFilters, shared: Type.Optional(Shared) },
  { additionalProperties: false },
);

export const SavedViewPatch = Type.Object(
  { name: Type.Optional(Name), filters: Type.Optional(SavedViewFilters), shared: Type.Optional(Shared) },
  { additionalProperties: false, minProperties: 1 },
);

export const SavedView = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    filters: SavedViewFilters,
    shared: Type.Boolean({ description: 'Seen by every user of the account' }),
    owner: Type.Object(
      {
        user_id: Type.String(),
        name: Nullable(Type.String({ description: "The owner's email; null once they are no user of the account" })),
      },
      { additionalProperties: false },
    ),
    mine: Type.Boolean({ description: "The caller's own view (which they may change); false: a colleague's, shared" }),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { title: 'SavedView', additionalProperties: false },
);

export const SavedViewList = Type.Object(
  {
    items: Type.Array(SavedView, {
      description: `The user's own views (at most ${MAX_SAVED_VIEWS}) and those colleagues shared with the account, by name`,
    }),
  },
  { title: 'SavedViewList', additionalProperties: false },
);

export const SavedViewDeleted = Type.Object({}, { additionalProperties: false });

export type SavedViewInput = Static<typeof SavedViewBody>;
export type SavedViewChange = Static<typeof SavedViewPatch>;
export type SavedViewFiltersInput = Static<typeof SavedViewFilters>;
export type SavedViewDto = Static<typeof SavedView>;
