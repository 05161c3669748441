import { Type, type Static } from 'typebox';
import { Timestamp } from '../../http/schemas.js';
import { RecordSearchQuery } from './review.schemas.js';

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

export const SavedViewBody = Type.Object({ name: Name, filters: SavedViewFilters }, { additionalProperties: false });

export const SavedViewPatch = Type.Object(
  { name: Type.Optional(Name), filters: Type.Optional(SavedViewFilters) },
  { additionalProperties: false, minProperties: 1 },
);

export const SavedView = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    filters: SavedViewFilters,
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { title: 'SavedView', additionalProperties: false },
);

export const SavedViewList = Type.Object(
  { items: Type.Array(SavedView, { description: `Every view of the user (at most ${MAX_SAVED_VIEWS}), by name` }) },
  { title: 'SavedViewList', additionalProperties: false },
);

export const SavedViewDeleted = Type.Object({}, { additionalProperties: false });

export type SavedViewInput = Static<typeof SavedViewBody>;
export type SavedViewChange = Static<typeof SavedViewPatch>;
export type SavedViewFiltersInput = Static<typeof SavedViewFilters>;
export type SavedViewDto = Static<typeof SavedView>;
