/**
 * The one error type of the service and its factories: one map (`errors.xxx(...)`), assembled from the files of
 * src/errors/ by what each error is about. Every 4xx/5xx body is rendered from an AppError by
 * http/error-handler.ts in the shape of CONVENTIONS.md: {error_code, message, details, request_id}.
 */
import { accessErrors } from './errors/access.errors.js';
import { domainErrors } from './errors/domain.errors.js';
import { receiptsErrors } from './errors/receipts.errors.js';
import { requestErrors } from './errors/request.errors.js';

export * from './errors/app-error.js';
export { transitionRefusal } from './errors/domain.errors.js';
export type { ReceiptShortfall } from './errors/receipts.errors.js';

export const errors = { ...requestErrors, ...accessErrors, ...domainErrors, ...receiptsErrors } as const;
