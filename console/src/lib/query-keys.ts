/**
 * Query keys shared by features: what a change must refresh. Every record query starts with 'records', so a
 * move or a coding invalidates them all (and the overview's counts) at once.
 */
export const queryKeys = {
  overview: ['overview'] as const,
  records: ['records'] as const,
  search: (query: object) => ['records', 'search', query] as const,
  record: (id: string) => ['records', 'detail', id] as const,
  history: (id: string) => ['records', 'history', id] as const,
  /** A record's coding suggestions at one version. */
  suggestions: (id: string, version: number) => ['records', 'suggestions', id, version] as const,
  /** The signed-in user's draft of a record's coding (not under 'records': a coding elsewhere does not change it). */
  draft: (id: string) => ['drafts', id] as const,
  requiredCoding: ['required-coding'] as const,
  fields: ['fields'] as const,
  fieldValues: (fieldId: string, text: string) => ['field-values', fieldId, text] as const,
  /** Every field (the fields screen; `fields` above holds the ones that can code a line). */
  allFields: ['fields', 'all'] as const,
  /** Every query of one field's values: what a change to its values must refresh. */
  valuesOf: (fieldId: string) => ['field-values', fieldId] as const,
  valuePage: (fieldId: string, cursor: string | null) => ['field-values', fieldId, { page: cursor }] as const,
  valueSearch: (fieldId: string, text: string) => ['field-values', fieldId, { search: text }] as const,
  apiClients: ['api-clients'] as const,
  /** The signed-in user's saved views of the review queue. */
  savedViews: ['saved-views'] as const,
};
