import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Db } from '../../db/database.js';
import { auditOf, authOf } from '../../http/auth.js';
import { writeTransaction } from '../../http/idempotency.js';
import { errorResponses } from '../../http/schemas.js';
import { receiptPolicy } from './receipt-policy.js';
import { ReceiptPolicyBody, ReceiptPolicyResponse } from './receipt-policy.schemas.js';

const tags = ['Internal: review workflow'];
/** As the review settings: reviewers read them, admins set them. */
const REVIEW = ['accounting.record.review', 'accounting.record.admin'] as const;

/** The account's receipt policy, beside its review settings (docs/receipts.md, "Receipt policy"). */
export function receiptPolicyRoutes(db: Db): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/internal/v1/accounting/receipt-policy',
      {
        config: { scopes: REVIEW },
        schema: {
          operationId: 'getReceiptPolicy',
          summary: "The account's receipt policy (receipts required above an amount)",
          description:
            "Per currency, the amount above which a record of the listed types needs a receipt before READY_FOR_EXPORT: a move there (or a creation there) of such a record without a receipt answers 422 RECEIPT_REQUIRED. The amount compared is the record's amount, in its own currency. No rules until set.",
          tags,
          response: { 200: ReceiptPolicyResponse },
        },
      },
      async (request) => receiptPolicy.get(db.direct, authOf(request)),
    );

    app.put(
      '/internal/v1/accounting/receipt-policy',
      {
        config: { scopes: ['accounting.record.admin'] },
        schema: {
          operationId: 'setReceiptPolicy',
          summary: "Set the account's receipt policy",
          description:
            'Replaces the rules (one per currency: 400 INVALID_REQUEST names an unknown or repeated currency, a negative amount or an unknown record type, and nothing is stored); kept in the audit log (account.settings_changed). Records already READY_FOR_EXPORT are not re-checked; moves and creations from now on are.',
          tags,
          body: ReceiptPolicyBody,
          response: { 200: ReceiptPolicyResponse, ...errorResponses(400) },
        },
      },
      async (request, reply) =>
        writeTransaction(db, request, reply, (ex) => receiptPolicy.set(ex, auditOf(request), request.body)),
    );
  };
}
