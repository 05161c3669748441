import type { CodingRule, CodingRuleVersion, ConsoleUser } from '@svc/client';
import { humanize } from '../../lib/format';
import { SOURCE_TYPE_LABELS } from '../../lib/labels';
import type { Actions, Conditions } from './rule-draft';

const quoted = (text: string) => `“${text}”`;
const either = (items: readonly string[]) =>
  items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} or ${items[items.length - 1]}`;

/** How words name a rule's fields and values (by name once looked up; by id until then). */
export interface Naming {
  field(fieldId: string): string;
  value(svcId: string): string;
}
const BY_ID: Naming = { field: (id) => id, value: (id) => id };

/**
 * A rule's conditions in plain words, one sentence part each: "Vendor name contains “uber”", "Source is Card",
 * "A line's Department is Sales", "Merchant category is 5812 or 5814".
 */
export function conditionWords(c: Conditions, naming: Naming = BY_ID): string[] {
  const words: string[] = [];
  if (c.vendor_name) {
    words.push(`Vendor name ${c.vendor_name.operator === 'EQUALS' ? 'is' : 'contains'} ${quoted(c.vendor_name.value)}`);
  }
  if (c.record_types) words.push(`Type is ${either(c.record_types.map(humanize))}`);
  if (c.source_types) words.push(`Source is ${either(c.source_types.map((s) => SOURCE_TYPE_LABELS[s]))}`);
  if (c.user_emails) words.push(`User is ${either(c.user_emails)}`);
  if (c.user_ids) words.push(`User id is ${either(c.user_ids)}`);
  if (c.user_department_ids) words.push(`User's department is ${either(c.user_department_ids)}`);
  if (c.user_location_ids) words.push(`User's location is ${either(c.user_location_ids)}`);
  for (const entry of c.line_field_values ?? []) {
    words.push(`A line's ${naming.field(entry.field_id)} is ${either(entry.svc_ids.map((id) => naming.value(id)))}`);
  }
  if (c.merchant_category_codes) words.push(`Merchant category is ${either(c.merchant_category_codes)}`);
  if (c.amount) {
    const { currency, min, max } = c.amount;
    if (min !== undefined && max !== undefined) words.push(`Amount from ${min} to ${max} ${currency}`);
    else if (min !== undefined) words.push(`Amount at least ${min} ${currency}`);
    else if (max !== undefined) words.push(`Amount at most ${max} ${currency}`);
    else words.push(`Amount in ${currency}`);
  }
  if (c.memo_contains !== undefined) words.push(`Memo contains ${quoted(c.memo_contains)}`);
  if (c.has_receipt !== undefined) words.push(c.has_receipt ? 'Has a receipt' : 'Has no receipt');
  return words;
}

/** Who saved a version: you, another console user, an API client, or svc itself (the CLI). */
export function actorWords(actor: CodingRule['updated_by'], me: ConsoleUser): string {
  if (actor.type === 'user') {
    if (actor.id === me.user_id) return 'you';
    return actor.name ?? `a user no longer in the account (${actor.id})`;
  }
  if (actor.type === 'client') return `API client ${actor.id}`;
  return `svc (${actor.id})`;
}

/** What one version changed from the one before it: words, and the actions when they changed (shown with names). */
export interface VersionChange {
  words: string[];
  actions: Actions | null;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

export function versionChange(
  version: CodingRuleVersion,
  before: CodingRuleVersion | undefined,
  naming: Naming = BY_ID,
): VersionChange {
  if (version.change === 'CREATED' || !before) {
    return { words: [`Created as “${version.name}”, ${version.enabled ? 'enabled' : 'disabled'}`], actions: null };
  }
  if (version.change === 'DELETED') return { words: ['Deleted'], actions: null };
  const words: string[] = [];
  if (version.name !== before.name) words.push(`Renamed from ${quoted(before.name)} to ${quoted(version.name)}`);
  if (version.enabled !== before.enabled) words.push(version.enabled ? 'Enabled' : 'Disabled');
  if (version.position !== before.position) {
    words.push(`Position changed from ${before.position} to ${version.position}`);
  }
  if (!same(version.conditions, before.conditions)) {
    words.push(`Conditions now: ${conditionWords(version.conditions, naming).join('; ')}`);
  }
  const actionsChanged = !same(version.actions, before.actions);
  if (words.length === 0 && !actionsChanged) words.push('Saved without a change');
  return { words, actions: actionsChanged ? version.actions : null };
}
