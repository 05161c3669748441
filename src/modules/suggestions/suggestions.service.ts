import type { Executor } from '../../db/database.js';
import { errors } from '../../errors.js';
import type { Caller, Tenant } from '../auth/auth.service.js';
import {
  suggestionCodingService,
  type AcceptedSuggestion,
  type SuggestionSubject,
  type TypeHistoryRecord,
} from '../accounting/suggestion-coding.service.js';
import { fieldValuesService, type Coding } from '../field-values/field-values.service.js';
import {
  chooser,
  HISTORY_LIMIT,
  reasonOf,
  recordsIn,
  samplesOf,
  type Sample,
  type Signal,
} from './suggestions.engine.js';

/** One suggested value for one line: the value most likely in a field the line has none in, and why. */
export interface Suggestion {
  line_id: string;
  field_id: string;
  field_name: string;
  svc_id: string;
  value: string;
  confidence: number;
  signal: Signal;
  reason: string;
  matching_records: number;
  coded_records: number;
}

export interface RecordSuggestions {
  accounting_record_id: string;
  version: number;
  suggestions: Suggestion[];
}

const pair = (fieldId: string, svcId: string) => `${fieldId}\u0000${svcId}`;

/**
 * The histories the subjects need, each key read once: a grid page's records share vendors, users and types.
 * Answers each subject's, in order.
 */
async function historiesOf(ex: Executor, tenant: Tenant, subjects: readonly SuggestionSubject[]) {
  const keys = (pick: (s: SuggestionSubject) => string | null) =>
    [...new Set(subjects.map(pick))].filter((k): k is string => k !== null);
  const {
    VENDOR: vendors,
    USER: users,
    RECORD_TYPE: types,
  } = await suggestionCodingService.histories(
    ex,
    tenant,
    { VENDOR: keys((s) => s.vendor_name), USER: keys((s) => s.user_email), RECORD_TYPE: keys((s) => s.type) },
    HISTORY_LIMIT,
  );
  const none: TypeHistoryRecord[] = [];
  return subjects.map((s) => ({
    vendor: (s.vendor_name !== null && vendors.get(s.vendor_name)) || none,
    user: (s.user_email !== null && users.get(s.user_email)) || none,
    type: types.get(s.type) ?? none,
  }));
}

/** The suggestions for each subject, in order: each economic line's uncoded fields that the history speaks for. */
async function suggest(ex: Executor, tenant: Tenant, subjects: readonly SuggestionSubject[]): Promise<Suggestion[][]> {
  const histories = await historiesOf(ex, tenant, subjects);
  const sampled: Sample[][] = subjects.map((s, i) => samplesOf(s, histories[i]!));
  // Only values that may be coded now: neither deleted nor disabled, nor of a disabled or deleted field.
  const refs = new Map<string, { field_id: string; svc_id: string }>();
  for (const r of recordsIn(sampled)) {
    for (const v of r.values) refs.set(pair(v.field_id, v.svc_id), v);
  }
  const looked = await fieldValuesService.lookupCodings(ex, tenant, [...refs.values()]);
  const usable = new Map<string, Coding>();
  for (const found of looked) {
    if ('coding' in found && !found.coding.is_disabled && !found.coding.field_is_disabled) {
      usable.set(pair(found.coding.field_id, found.coding.svc_id), found.coding);
    }
  }
  const choosing = chooser((fieldId, svcId) => usable.has(pair(fieldId, svcId)));
  return subjects.map((subject, i) => {
    const samples = sampled[i]!;
    // Fields in creation order (their ids sort so), each decided once for the whole record.
    const out: Suggestion[] = [];
    const chosen = choosing
      .fieldsOf(samples)
      .map((fieldId) => ({ fieldId, choice: choosing.choose(samples, fieldId) }));
    for (const line of subject.lines) {
      for (const { fieldId, choice } of chosen) {
        if (!choice || line.field_ids.includes(fieldId)) continue;
        const coding = usable.get(pair(fieldId, choice.svc_id))!;
        out.push({
          line_id: line.id,
          field_id: fieldId,
          field_name: coding.field_name,
          svc_id: choice.svc_id,
          value: coding.value,
          confidence: choice.confidence,
          signal: choice.signal,
          reason: reasonOf(choice, coding.value),
          matching_records: choice.matching,
          coded_records: choice.of,
        });
      }
    }
    return out;
  });
}

/**
 * Coding suggestions (docs/suggestions.md): for each economic line of a record, the most likely value of each
 * field it has none in, learned from the account's own approved records; and accepting them, which codes the
 * lines through accounting's coding path.
 */
export const suggestionsService = {
  /** The suggestions for each record, in the order asked; 404 naming the records the account does not have. */
  async forRecords(ex: Executor, tenant: Tenant, ids: readonly string[]): Promise<RecordSuggestions[]> {
    const found = new Map((await suggestionCodingService.subjects(ex, tenant, ids)).map((s) => [s.id, s]));
    const missing = ids.filter((id) => !found.has(id));
    if (missing.length === 1 && ids.length === 1) {
      throw errors.notFound(`Accounting record ${missing[0]}`, { accounting_record_id: missing[0] });
    }
    if (missing.length > 0) {
      throw errors.notFound(`Accounting records ${missing.join(', ')}`, { not_found_accounting_record_ids: missing });
    }
    const subjects = ids.map((id) => found.get(id)!);
    const suggested = await suggest(ex, tenant, subjects);
    return subjects.map((s, i) => ({ accounting_record_id: s.id, version: s.version, suggestions: suggested[i]! }));
  },

  /**
   * Codes the record's lines with its suggestions now (of `line_ids` and `field_ids` when given), in one new
   * version whose CODED event names each suggestion accepted; nothing to accept changes nothing.
   */
  async accept(
    ex: Executor,
    caller: Caller,
    id: string,
    input: { version: number; line_ids?: string[]; field_ids?: string[] },
  ) {
    return suggestionCodingService.accept(ex, caller, id, input.version, input.line_ids, async (subject) => {
      const [suggestions] = await suggest(ex, caller, [subject]);
      return suggestions!
        .filter((s) => (input.line_ids ? input.line_ids.includes(s.line_id) : true))
        .filter((s) => (input.field_ids ? input.field_ids.includes(s.field_id) : true))
        .map((s): AcceptedSuggestion & { signal: Signal } => ({
          line_id: s.line_id,
          field_id: s.field_id,
          svc_id: s.svc_id,
          confidence: s.confidence,
          signal: s.signal,
          reason: s.reason,
        }));
    });
  },
};
