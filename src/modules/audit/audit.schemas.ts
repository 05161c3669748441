import { Type } from 'typebox';
import { Cursor, Limit, Nullable, PageLinks, oneOf, Timestamp } from '../../http/schemas.js';
import { AUDIT_ACTIONS, AUDIT_ACTOR_TYPES, AUDIT_TARGETS } from './audit.tables.js';

const Ref = (description: string) =>
  Type.Object({ type: Type.String(), id: Type.String() }, { description, additionalProperties: false });

export const AuditEvent = Type.Object(
  {
    id: Type.String({ description: 'aud_…, unique and sortable by creation time' }),
    occurred_at: Timestamp,
    action: oneOf(AUDIT_ACTIONS, 'What was done'),
    actor: Type.Object(
      {
        type: oneOf(AUDIT_ACTOR_TYPES, 'A console user, an API client, or the operator (`svc`) and the service itself'),
        id: Type.String({ description: 'The user id (usr_…), the client id (cli_…), or svc-cli' }),
        name: Type.Optional(
          Type.String({
            description:
              "A user's name as people know them (the email they sign in with), when the actor is a user of the account",
          }),
        ),
      },
      { additionalProperties: false, description: 'Who did it' },
    ),
    target: Ref('What it was done to'),
    address: Nullable(Type.String({ description: 'The client address of the request (null for the `svc` command)' })),
    request_id: Nullable(Type.String({ description: "The request's X-Request-Id (null for the `svc` command)" })),
    details: Type.Record(Type.String(), Type.Unknown(), {
      description:
        'What the action did: scopes granted, the fields changed, the settings before and after. Never a secret.',
    }),
  },
  { title: 'AuditEvent', additionalProperties: false },
);

export const AuditQuery = Type.Object(
  {
    'action[]': Type.Optional(
      Type.Array(oneOf(AUDIT_ACTIONS), { maxItems: AUDIT_ACTIONS.length, description: 'Any of these actions' }),
    ),
    actor_id: Type.Optional(
      Type.String({ minLength: 1, maxLength: 255, description: 'Actions of this user or client' }),
    ),
    target_type: Type.Optional(oneOf(AUDIT_TARGETS, 'Actions on this kind of object')),
    target_id: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'Actions on this object' })),
    'occurred_at[gte]': Type.Optional(
      Type.String({ format: 'date-time', description: 'Actions at or after this time (RFC 3339)' }),
    ),
    'occurred_at[lt]': Type.Optional(
      Type.String({ format: 'date-time', description: 'Actions before this time (RFC 3339)' }),
    ),
    cursor: Type.Optional(Cursor),
    limit: Type.Optional(Limit(500)),
  },
  { additionalProperties: false },
);

export const AuditPage = Type.Object(
  {
    items: Type.Array(AuditEvent, { description: 'Newest first' }),
    ...PageLinks,
  },
  { title: 'AuditEventPage' },
);
