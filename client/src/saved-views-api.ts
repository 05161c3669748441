import type { RequestOptions, Transport } from './transport.js';
import type { SavedView, SavedViewCreate, SavedViewUpdate } from './types.js';

const enc = encodeURIComponent;
const VIEWS = '/internal/v1/accounting/saved-views';

/**
 * The signed-in console user's own saved views of the review queue (docs/console.md, "Saved views"): a name and
 * the queue's search filters and sort. Console sessions only (an API client is refused, 403). A name the user has
 * already is refused 409 CONFLICT; filters the search would refuse, 400 naming the member.
 */
export function savedViewsApi(http: Transport) {
  return {
    /** Every view of the user, by name. */
    list: async (options?: RequestOptions): Promise<SavedView[]> =>
      (await http.request<{ items: SavedView[] }>({ method: 'GET', path: VIEWS, options })).items,
    create: async (input: SavedViewCreate, options?: RequestOptions): Promise<SavedView> =>
      http.request<SavedView>({ method: 'POST', path: VIEWS, body: input, options }),
    /** A new name, new filters, or both. */
    update: async (id: string, input: SavedViewUpdate, options?: RequestOptions): Promise<SavedView> =>
      http.request<SavedView>({ method: 'PATCH', path: `${VIEWS}/${enc(id)}`, body: input, options }),
    delete: async (id: string, options?: RequestOptions): Promise<void> => {
      await http.request<Record<string, never>>({ method: 'DELETE', path: `${VIEWS}/${enc(id)}`, options });
    },
  };
}
