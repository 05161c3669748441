import { Type } from 'typebox';
import { ReviewStatusSchema, SourceTypeSchema } from './accounting.schema-parts.js';

/** Days the overview's exports-per-day chart covers, today last. */
export const OVERVIEW_DAYS = 30;
/** Records the overview lists as waiting longest. */
export const WAITING = 5;

export const OverviewResponse = Type.Object(
  {
    counts: Type.Array(
      Type.Object({ review_status: ReviewStatusSchema, source_type: SourceTypeSchema, count: Type.Integer() }),
      { description: 'Records by review state and source type (combinations with none are left out)' },
    ),
    waiting_longest: Type.Array(Type.Ref('AccountingRecord'), {
      description: `The ${WAITING} records in PREPARE or REVIEW unchanged the longest, oldest first`,
    }),
    failed_exports: Type.Integer({
      description: 'Records whose last export report was a failure (has_export_failure=true in the search)',
    }),
    exports_per_day: Type.Array(
      Type.Object({
        date: Type.String({ format: 'date', description: 'A UTC day' }),
        exported: Type.Integer({
          description:
            'Records with an export success reported that day (the queue: exported_on, export_outcome=SUCCESS)',
        }),
        failed: Type.Integer({
          description:
            'Records with an export failure reported that day (the queue: exported_on, export_outcome=FAILURE)',
        }),
      }),
      { description: `The last ${OVERVIEW_DAYS} UTC days, today last, days without reports included` },
    ),
  },
  { title: 'AccountingOverview' },
);
