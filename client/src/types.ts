import type { paths } from './openapi.js';

/** Request and response types of each operation, read from the generated OpenAPI types. */
type Operation<P extends keyof paths, M extends string> = M extends keyof paths[P] ? paths[P][M] : never;
type Json<T> = T extends { content: { 'application/json': infer B } } ? B : never;

export type Body<P extends keyof paths, M extends string> =
  Operation<P, M> extends { requestBody?: infer R } ? Json<NonNullable<R>> : never;
export type Ok<P extends keyof paths, M extends string> =
  Operation<P, M> extends { responses: { 200: infer R } } ? Json<R> : never;
export type Query<P extends keyof paths, M extends string> =
  Operation<P, M> extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;

export type Field = Ok<'/v1/fields/{id}', 'get'>;
export type FieldCreate = Body<'/v1/fields', 'post'>;
export type FieldUpdate = Body<'/v1/fields/{id}', 'put'>;
export type FieldListQuery = Query<'/v1/fields', 'get'>;
export type FieldPage = Ok<'/v1/fields', 'get'>;

export type FieldValue = Ok<'/v1/fields/{field_id}/values/{svc_id}', 'get'>;
export type FieldValueCreate = Body<'/v1/fields/{field_id}/values', 'post'>['items'][number];
export type FieldValueUpdate = Body<'/v1/fields/{field_id}/values', 'put'>['items'][number];
export type FieldValueDelete = Body<'/v1/fields/{field_id}/values', 'delete'>['items'][number];
export type FieldValueListQuery = Query<'/v1/fields/{field_id}/values', 'get'>;
export type FieldValuePage = Ok<'/v1/fields/{field_id}/values', 'get'>;

export type AccountingRecord = Ok<'/v3/accounting/records/{record_id}', 'get'>;
/** What a record's one balancing line books (CARD_LIABILITY, BANK, …): map each to an account of the ERP. */
export type BalancingAccountType = AccountingRecord['balancing_account_type'];
export type AccountingRecordQuery = Query<'/v3/accounting/records', 'get'>;
export type AccountingRecordPage = Ok<'/v3/accounting/records', 'get'>;
export type ExportResult = Body<'/v3/accounting/records/export-results', 'post'>['results'][number];
export type ExportResultsResponse = Ok<'/v3/accounting/records/export-results', 'post'>;

// Internal API: the review workflow (scope accounting.record.review or accounting.record.admin).
export type RecordCreate = Body<'/internal/v1/accounting/records', 'post'>['items'][number];
export type CodeLinesRequest = Body<'/internal/v1/accounting/records/{record_id}/coding', 'post'>;
export type SplitLineRequest = Body<'/internal/v1/accounting/records/{record_id}/lines/{line_id}/split', 'post'>;
export type MergeLinesRequest = Body<'/internal/v1/accounting/records/{record_id}/lines/merge', 'post'>;
export type RecordWithSingleEntry = Ok<'/internal/v1/accounting/records/{record_id}/coding', 'post'>;
export type ReviewMoveRequest = Body<'/internal/v1/accounting/records/{record_id}/review-status', 'post'>;
export type BulkMoveRequest = Body<'/internal/v1/accounting/records/review-status', 'post'>;
export type BulkMoveResponse = Ok<'/internal/v1/accounting/records/review-status', 'post'>;
export type BulkCodingRequest = Body<'/internal/v1/accounting/records/coding', 'post'>;
export type BulkCodingItem = BulkCodingRequest['items'][number];
export type BulkCodingResponse = Ok<'/internal/v1/accounting/records/coding', 'post'>;
/** One record's outcome: SAVED with the record as coded, or REFUSED with the error its own coding would answer. */
export type BulkCodingResult = BulkCodingResponse['items'][number];
export type NotMovedRecord = NonNullable<BulkMoveResponse['not_moved']>[number];
/** A record to review (both forms, one version) with the moves the server allows it now. */
export type RecordForReview = Ok<'/internal/v1/accounting/records/{record_id}', 'get'>;
export type ReviewMove = RecordForReview['allowed_moves'][number];
export type RecordsAllowedMoves = Ok<'/internal/v1/accounting/records/allowed-moves', 'get'>;
export type RecordHistoryQuery = Query<'/internal/v1/accounting/records/{record_id}/history', 'get'>;
export type RecordHistoryPage = Ok<'/internal/v1/accounting/records/{record_id}/history', 'get'>;
export type RecordEvent = RecordHistoryPage['items'][number];
export type RecordSearchQuery = Query<'/internal/v1/accounting/records', 'get'>;
export type RecordSearchPage = Ok<'/internal/v1/accounting/records', 'get'>;
export type RequiredCoding = Ok<'/internal/v1/accounting/required-coding', 'get'>;
export type ReviewSettings = Ok<'/internal/v1/accounting/review-settings', 'get'>;
export type ReviewSettingsRequest = Body<'/internal/v1/accounting/review-settings', 'put'>;
export type ReceiptPolicy = Ok<'/internal/v1/accounting/receipt-policy', 'get'>;
export type ReceiptPolicyRequest = Body<'/internal/v1/accounting/receipt-policy', 'put'>;
export type ReceiptRule = ReceiptPolicy['rules'][number];
export type FieldValueSearchQuery = Query<'/internal/v1/fields/{field_id}/values/search', 'get'>;
export type AccountingOverview = Ok<'/internal/v1/accounting/overview', 'get'>;

// Coding rules (accounting.record.review to read and preview, accounting.record.admin to save and apply).
export type CodingRule = Ok<'/internal/v1/accounting/coding-rules/{rule_id}', 'get'>;
export type CodingRuleListQuery = Query<'/internal/v1/accounting/coding-rules', 'get'>;
export type CodingRulePage = Ok<'/internal/v1/accounting/coding-rules', 'get'>;
export type CodingRuleCreateRequest = Body<'/internal/v1/accounting/coding-rules', 'post'>;
export type CodingRuleUpdateRequest = Body<'/internal/v1/accounting/coding-rules/{rule_id}', 'patch'>;
export type CodingRuleVersionQuery = Query<'/internal/v1/accounting/coding-rules/{rule_id}/versions', 'get'>;
export type CodingRuleVersionPage = Ok<'/internal/v1/accounting/coding-rules/{rule_id}/versions', 'get'>;
export type CodingRuleVersion = CodingRuleVersionPage['items'][number];
export type CodingRulePreviewRequest = Body<'/internal/v1/accounting/coding-rules/preview', 'post'>;
export type CodingRulePreview = Ok<'/internal/v1/accounting/coding-rules/preview', 'post'>;
export type CodingRulesApplyRequest = Body<'/internal/v1/accounting/coding-rules/apply', 'post'>;
export type CodingRulesApplied = Ok<'/internal/v1/accounting/coding-rules/apply', 'post'>;

// Coding suggestions (accounting.record.review or accounting.record.admin).
export type RecordCodingSuggestions = Ok<'/internal/v1/accounting/records/{record_id}/suggestions', 'get'>;
export type CodingSuggestion = RecordCodingSuggestions['suggestions'][number];
export type CodingSuggestionsPage = Ok<'/internal/v1/accounting/suggestions', 'post'>;
export type CodingSuggestionsAcceptRequest = Body<
  '/internal/v1/accounting/records/{record_id}/suggestions/accept',
  'post'
>;
export type CodingSuggestionsAccepted = Ok<'/internal/v1/accounting/records/{record_id}/suggestions/accept', 'post'>;

/** A console user's own unsaved coding of a record, kept on the server (console sessions only). */
export type RecordDraftAnswer = Ok<'/internal/v1/accounting/records/{record_id}/draft', 'get'>;
export type RecordDraft = NonNullable<RecordDraftAnswer['draft']>;
export type RecordDraftRequest = Body<'/internal/v1/accounting/records/{record_id}/draft', 'put'>;
export type SavedView = Ok<'/internal/v1/accounting/saved-views/{view_id}', 'patch'>;
export type SavedViewFilters = SavedView['filters'];
export type SavedViewCreate = Body<'/internal/v1/accounting/saved-views', 'post'>;
export type SavedViewUpdate = Body<'/internal/v1/accounting/saved-views/{view_id}', 'patch'>;

// The console's session (cookie and CSRF token; `new SvcClient({ baseUrl, session: true })` in a browser).
export type SignInRequest = Body<'/auth/session', 'post'>;
export type ConsoleSession = Ok<'/auth/session', 'get'>;
export type ConsoleUser = ConsoleSession['user'];
export type SetPasswordRequest = Body<'/auth/password', 'post'>;
/** Where a sign-in stands: SIGNED_IN, or halfway (MFA_CODE: a code to send; MFA_ENROLMENT: two-step sign-in to set up). */
export type SignInStep = ConsoleSession['step'];

// Two-step sign-in of the session's user (TOTP, passkeys and recovery codes).
export type MfaStatus = Ok<'/auth/mfa', 'get'>;
export type TotpEnrolment = Ok<'/auth/mfa/totp', 'post'>;
export type TotpCodeRequest = Body<'/auth/mfa/totp/confirm', 'post'>;
export type TotpConfirmed = Ok<'/auth/mfa/totp/confirm', 'post'>;
export type MfaCodeRequest = Body<'/auth/mfa/verify', 'post'>;
export type MfaVerified = Ok<'/auth/mfa/verify', 'post'>;
export type NewRecoveryCodes = Ok<'/auth/mfa/recovery-codes', 'post'>;
/** What may answer a sign-in's second step (the session's `mfa_factors` while its step is MFA_CODE). */
export type MfaFactor = NonNullable<ConsoleSession['mfa_factors']>[number];

// Passkeys and security keys (WebAuthn) as a second factor.
export type PasskeyList = Ok<'/auth/mfa/passkeys', 'get'>;
export type Passkey = PasskeyList['items'][number];
/** The options of navigator.credentials.create(), as JSON: `startRegistration({ optionsJSON })` takes them. */
export type PasskeyRegistrationOptions = Ok<'/auth/mfa/passkeys/registration-options', 'post'>;
export type PasskeyRegistrationRequest = Body<'/auth/mfa/passkeys', 'post'>;
export type PasskeyRegistered = Ok<'/auth/mfa/passkeys', 'post'>;
/** The options of navigator.credentials.get(), as JSON: `startAuthentication({ optionsJSON })` takes them. */
export type PasskeyAuthenticationOptions = Ok<'/auth/mfa/passkeys/authentication-options', 'post'>;
export type PasskeyAuthenticationRequest = Body<'/auth/mfa/passkeys/verify', 'post'>;

// An account admin's side of the console's users (scope account.admin, in the console only).
export type ConsoleUserList = Ok<'/internal/v1/users', 'get'>;
export type AccountUserSettings = Ok<'/internal/v1/account/user-settings', 'get'>;
export type AccountUserSettingsUpdate = Body<'/internal/v1/account/user-settings', 'put'>;

// The account's API clients (scope account.admin).
export type ApiClientList = Ok<'/internal/v1/clients', 'get'>;
export type ApiClient = ApiClientList['items'][number];
export type ApiClientCreateRequest = Body<'/internal/v1/clients', 'post'>;
export type ApiClientCredentials = Ok<'/internal/v1/clients', 'post'>;
export type ApiClientRotateSecretRequest = Body<'/internal/v1/clients/{client_id}/rotate-secret', 'post'>;
export type ApiClientRotatedSecret = Ok<'/internal/v1/clients/{client_id}/rotate-secret', 'post'>;
export type ApiClientUpdateRequest = Body<'/internal/v1/clients/{client_id}', 'patch'>;

// Accounting integrations: the reference's three operations (accounting.integration.write) and svc's own list.
export type Integration = Ok<'/v3/accounting/integration', 'post'>;
export type CreateIntegrationRequest = Body<'/v3/accounting/integration', 'post'>;
export type IntegrationListQuery = Query<'/internal/v1/integrations', 'get'>;
export type IntegrationPage = Ok<'/internal/v1/integrations', 'get'>;
export type IntegrationListing = IntegrationPage['items'][number];

export type ConsentQuery = Query<'/internal/v1/oauth/consent', 'get'>;
export type ConsentRequest = Ok<'/internal/v1/oauth/consent', 'get'>;
export type ConsentDecision = Body<'/internal/v1/oauth/consent', 'post'>;
export type ConsentAnswer = Ok<'/internal/v1/oauth/consent', 'post'>;
export type ConnectedAppList = Ok<'/internal/v1/connected-apps', 'get'>;
export type ConnectedApp = ConnectedAppList['items'][number];

// Webhook endpoints (webhooks.read, webhooks.write) and the event feed (events.read, or either webhooks scope).
export type WebhookEndpoint = Ok<'/v1/webhooks/{webhook_id}', 'get'>;
export type WebhookEndpointCreateRequest = Body<'/v1/webhooks', 'post'>;
/** The new endpoint with its signing secret (also at `webhooks.secrets`). */
export type WebhookEndpointCreated = Ok<'/v1/webhooks', 'post'>;
export type WebhookEndpointUpdateRequest = Body<'/v1/webhooks/{webhook_id}', 'put'>;
export type WebhookEndpointListQuery = Query<'/v1/webhooks', 'get'>;
export type WebhookEndpointPage = Ok<'/v1/webhooks', 'get'>;
export type WebhookEndpointStatus = WebhookEndpoint['status'];
export type WebhookSecrets = Ok<'/v1/webhooks/{webhook_id}/secret', 'get'>;
export type RotateWebhookSecretRequest = Body<'/v1/webhooks/{webhook_id}/secret/rotate', 'post'>;
export type WebhookAttemptQuery = Query<'/v1/webhooks/{webhook_id}/attempts', 'get'>;
export type WebhookAttemptPage = Ok<'/v1/webhooks/{webhook_id}/attempts', 'get'>;
export type WebhookAttempt = WebhookAttemptPage['items'][number];
export type RedeliverRequest = Body<'/v1/webhooks/{webhook_id}/redeliver', 'post'>;
export type RedeliverResponse = Ok<'/v1/webhooks/{webhook_id}/redeliver', 'post'>;
/** A test event (`webhook.test`) as the endpoint receives it: sent to that endpoint alone, never in the feed. */
export type WebhookTestEvent = Ok<'/v1/webhooks/{webhook_id}/test', 'post'>;
/** An event type of the catalogue (docs/webhooks.md). */
export type EventType = WebhookEndpoint['event_types'][number];
export type EventFeedQuery = Query<'/v1/events', 'get'>;
export type EventFeedPage = Ok<'/v1/events', 'get'>;
/** An event as the feed answers it (`@svc/client/webhooks` types the same events as `AccountEvent`). */
export type FeedEvent = EventFeedPage['items'][number];

// The account's audit log (scope audit.read).
export type AuditEventQuery = Query<'/internal/v1/audit-events', 'get'>;
export type AuditEventPage = Ok<'/internal/v1/audit-events', 'get'>;
export type AuditEvent = AuditEventPage['items'][number];

/** A file export of READY_FOR_EXPORT records (docs/exports.md): format, selection, mapping. */
export type ExportFileRequest = Body<'/internal/v1/accounting/exports', 'post'>;
export type ExportFormat = ExportFileRequest['format'];
export type ExportMapping = Ok<'/internal/v1/accounting/export-mapping', 'get'>;
export type ExportMappingRequest = Body<'/internal/v1/accounting/export-mapping', 'put'>;
export type ReceiptUploadAnswer = Ok<'/internal/v1/accounting/records/{record_id}/receipts', 'post'>;
export type Receipt = ReceiptUploadAnswer['receipt'];
export type ReceiptRemoveAnswer = Ok<'/internal/v1/accounting/records/{record_id}/receipts/{receipt_id}', 'delete'>;
