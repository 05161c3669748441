import { Type } from 'typebox';
import { FIREABLE } from './events-on-demand.service.js';
import { FAULT_KINDS, FAULT_METHODS } from './faults.service.js';
import { SCENARIO_NAMES, SCENARIOS } from './scenarios.service.js';

export const tags = ['Sandbox'];

const ScenarioName = Type.Unsafe<(typeof SCENARIO_NAMES)[number]>({
  type: 'string',
  enum: [...SCENARIO_NAMES],
  description: `A named data set (docs/sandbox.md): ${SCENARIO_NAMES.map((n) => `\`${n}\`: ${SCENARIOS[n]}`).join(' ')}`,
});

export const NewAccountBody = Type.Object(
  {
    scenario: Type.Optional(ScenarioName),
    seed: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 4294967295,
        description: 'The same seed makes the same data (default: any)',
      }),
    ),
  },
  { additionalProperties: false, title: 'SandboxAccountCreateRequest' },
);

const ScenarioSummary = Type.Object(
  {
    name: Type.String(),
    seed: Type.Integer(),
    fields: Type.Array(
      Type.Object({
        svc_id: Type.String(),
        name: Type.String(),
        remote_id: Type.Union([Type.String(), Type.Null()]),
        values: Type.Integer(),
      }),
    ),
    records: Type.Integer(),
  },
  { title: 'SandboxScenarioSummary' },
);

export const SandboxAccount = Type.Object(
  {
    account_id: Type.String(),
    client_id: Type.String(),
    client_secret: Type.String({ description: 'Shown in this answer only' }),
    scopes: Type.Array(Type.String()),
    scenario: ScenarioSummary,
  },
  { title: 'SandboxAccount' },
);

export const ResetAnswer = Type.Object(
  { account_id: Type.String(), scenario: ScenarioSummary },
  { title: 'SandboxAccountReset' },
);

export const AccountParams = Type.Object(
  { account_id: Type.String({ minLength: 1, maxLength: 64, description: 'The sandbox account (sbx_…)' }) },
  { additionalProperties: false },
);

export const ClientParams = Type.Object(
  { client_id: Type.String({ minLength: 1, maxLength: 255, description: 'The client whose requests fail (cli_…)' }) },
  { additionalProperties: false },
);

export const FaultBody = Type.Object(
  {
    kind: Type.Unsafe<(typeof FAULT_KINDS)[number]>({
      type: 'string',
      enum: [...FAULT_KINDS],
      description:
        '"429" (RATE_LIMITED with Retry-After), "500", "503" (with Retry-After), "delay" (the request runs after delay_ms), "drop_after_commit" (the request runs and commits, then the connection is closed without an answer)',
    }),
    count: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 1_000_000, description: 'The next N requests (default 1)' }),
    ),
    fraction: Type.Optional(
      Type.Number({
        exclusiveMinimum: 0,
        maximum: 1,
        description: 'Instead of count: each request with this probability, until cleared',
      }),
    ),
    delay_ms: Type.Optional(Type.Integer({ minimum: 1, maximum: 60_000, description: 'delay: default 1000' })),
    retry_after: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 3600, description: '429 and 503: Retry-After seconds (default 1)' }),
    ),
    method: Type.Optional(
      Type.Unsafe<(typeof FAULT_METHODS)[number]>({
        type: 'string',
        enum: [...FAULT_METHODS],
        description: 'Only requests with this method (default: any)',
      }),
    ),
    route: Type.Optional(
      Type.String({
        minLength: 2,
        maxLength: 200,
        pattern: '^/',
        description:
          'Only requests of this route, its path as /openapi.json writes it, e.g. /v3/accounting/export-results or /v3/accounting/records/{id} (default: any)',
      }),
    ),
  },
  { additionalProperties: false, title: 'SandboxFaultRequest' },
);

export const Fault = Type.Object(
  {
    client_id: Type.String(),
    kind: Type.String(),
    count: Type.Union([Type.Integer(), Type.Null()], { description: 'Requests still to be affected' }),
    fraction: Type.Union([Type.Number(), Type.Null()]),
    delay_ms: Type.Integer(),
    retry_after: Type.Integer(),
    method: Type.Union([Type.String(), Type.Null()], { description: 'The method it is narrowed to; null: any' }),
    route: Type.Union([Type.String(), Type.Null()], { description: 'The route it is narrowed to; null: any' }),
  },
  { title: 'SandboxFault' },
);

export const FaultList = Type.Object(
  {
    items: Type.Array(Fault, {
      description: 'The narrowest first: the one a request meets is the first that selects it',
    }),
  },
  { title: 'SandboxFaultList' },
);

export const ExpireTokensBody = Type.Object(
  {
    access_token: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 512,
        description: 'Only this token (default: every live one of the client)',
      }),
    ),
  },
  { additionalProperties: false, title: 'SandboxExpireTokensRequest' },
);

export const ExpiredTokens = Type.Object(
  { expired: Type.Integer({ description: 'How many live access tokens were expired' }) },
  { title: 'SandboxExpiredTokens' },
);

export const FireEventBody = Type.Object(
  {
    type: Type.Unsafe<(typeof FIREABLE)[number]>({
      type: 'string',
      enum: [...FIREABLE],
      description:
        'The event to announce (docs/webhooks.md has the catalogue); accounting_record.ready_for_export also brings its ACCOUNTING_RECORD_READY_FOR_EXPORT form',
    }),
    object_id: Type.String({
      minLength: 1,
      maxLength: 255,
      description: 'The record, field (field_values.changed) or integration it names: it must exist in the account',
    }),
    error_message: Type.Optional(
      Type.String({ minLength: 1, maxLength: 1000, description: 'accounting_record.export_failed: the message' }),
    ),
    operation: Type.Optional(
      Type.Unsafe<'CREATED' | 'UPDATED' | 'DELETED'>({
        type: 'string',
        enum: ['CREATED', 'UPDATED', 'DELETED'],
        description: 'field_values.changed: the batch operation (default UPDATED)',
      }),
    ),
    svc_ids: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 255 }), {
        maxItems: 1000,
        description: 'field_values.changed: the values the batch names (default none)',
      }),
    ),
  },
  { additionalProperties: false, title: 'SandboxFireEventRequest' },
);

export const FiredEvents = Type.Object(
  {
    events: Type.Array(Type.Object({ id: Type.String(), type: Type.String() }), {
      description: 'The events written, in feed order: the feed lists them and the webhook endpoints receive them',
    }),
  },
  { title: 'SandboxFiredEvents' },
);

export const AdvanceTimeBody = Type.Object(
  {
    seconds: Type.Integer({
      minimum: 1,
      maximum: 30 * 24 * 3600,
      description: 'How much time passes for the account’s webhook schedules (at most 30 days)',
    }),
  },
  { additionalProperties: false, title: 'SandboxAdvanceTimeRequest' },
);

export const AdvancedTime = Type.Object(
  {
    deliveries: Type.Integer({ description: 'Waiting deliveries whose next attempt and retry window moved' }),
    endpoints: Type.Integer({ description: 'Failing endpoints whose "failing since" moved' }),
  },
  { title: 'SandboxAdvancedTime' },
);
