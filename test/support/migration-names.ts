/** The migrations the migration tests name, and the order they run in (src/db/migrations/). */

/** The detail columns 0005 moved from accounting_records to accounting_record_details. */
export const DETAILS = ['line_items_json', 'user_json', 'vendor_json', 'receipts_json'] as const;
export const RECORD_FIELDS = '0008_record_fields';
export const INTEGRATIONS = '0009_integrations';
export const WEBHOOKS = '0010_webhooks';
export const OAUTH_APPS = '0011_oauth_apps';
export const SECRET_ROTATION = '0012_client_secret_rotation';
export const SIGN_IN_SECURITY = '0013_sign_in_security';
export const AUDIT_LOG = '0015_audit_log';
export const CANONICAL_JSON = '0016_canonical_record_json';
export const DELIVERY_QUEUES = '0014_webhook_delivery_queues';
export const PASSKEYS = '0017_passkeys';
export const AUTOVACUUM = '0018_autovacuum_settings';
export const CODING_RULES = '0019_coding_rules';
export const DISPATCHERS = '0020_webhook_dispatchers';
export const REVIEW_SETTINGS = '0021_review_settings';
export const SUGGESTION_INDEXES = '0022_suggestion_indexes';
export const RECORD_DRAFTS = '0023_record_drafts';
export const MERCHANT_CATEGORY_CODE = '0024_merchant_category_code';
export const RECEIPTS = '0025_receipts';
export const RECORD_TERMS = '0027_record_search_terms';
export const RECEIPT_POLICY = '0028_receipt_policy';
export const CLIENT_NAMES = '0029_api_client_names';
export const RECEIPT_LINKS = '0030_record_receipt_links';
export const EXPORT_MAPPINGS = '0031_export_mappings';
export const SAVED_VIEWS = '0032_saved_views';
export const COVERING_HISTORY = '0033_covering_history_indexes';
/** The migrations after 0003, in the order they run. */
export const LATER = [
  '0004_line_items_as_answered',
  '0005_record_details',
  '0006_review_workflow',
  '0007_console_users',
  RECORD_FIELDS,
  INTEGRATIONS,
  WEBHOOKS,
  OAUTH_APPS,
  SECRET_ROTATION,
  SIGN_IN_SECURITY,
  DELIVERY_QUEUES,
  AUDIT_LOG,
  CANONICAL_JSON,
  PASSKEYS,
  AUTOVACUUM,
  CODING_RULES,
  DISPATCHERS,
  REVIEW_SETTINGS,
  SUGGESTION_INDEXES,
  RECORD_DRAFTS,
  MERCHANT_CATEGORY_CODE,
  RECEIPTS,
  RECORD_TERMS,
  RECEIPT_POLICY,
  CLIENT_NAMES,
  RECEIPT_LINKS,
  EXPORT_MAPPINGS,
  SAVED_VIEWS,
  COVERING_HISTORY,
];
/** `name` and the migrations after it, in the order they run: what migrateToLatest applies once `name` is undone. */
export const laterFrom = (name: string): string[] => {
  const at = LATER.indexOf(name);
  if (at < 0) throw new Error(`${name} is not a later migration`);
  return LATER.slice(at);
};
export const REVIEW_COLUMNS = ['amount_sort', 'uncoded_lines', 'vendor_name', 'user_email'];
export const RECORD_FIELD_COLUMNS = ['status', 'billing_currency', 'billing_amount_minor'];
