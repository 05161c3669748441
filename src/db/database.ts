import type { Kysely } from 'kysely';
import type { AuthTables } from '../modules/auth/auth.tables.js';
import type { IdempotencyTables } from '../http/idempotency.tables.js';
import type { FieldTables } from '../modules/fields/fields.tables.js';
import type { FieldValueTables } from '../modules/field-values/field-values.tables.js';
import type { AccountingTables } from '../modules/accounting/accounting.tables.js';

/**
 * Every table of the service. Each module declares its own tables in `<module>.tables.ts`; this type joins
 * them. Times are integer microseconds since the epoch; booleans are 0/1 integers in both dialects.
 */
export interface Database extends AuthTables, IdempotencyTables, FieldTables, FieldValueTables, AccountingTables {}

/** A database handle or an open transaction: repositories accept either. */
export type Executor = Kysely<Database>;
