import { expect, it } from 'vitest';
import { ADMIN, EXPORT_RESULTS, reviewUrl } from './support/accounting.js';
import { describeEachDialect } from './support/context.js';
import { errorBody } from './support/expect.js';
import { BULK, REVIEWER } from './support/review.js';

/**
 * Issue 36, 10: the refusals of export results and review moves say what happened and what to do, in words. The
 * words are what this file tests; the codes and details keys are pinned here too, and in the files of each operation.
 */
describeEachDialect('accounting refusals in words a person reads', (t) => {
  it('export results for unknown, repeated or unready records name the records, not "source IDs"', async () => {
    const api = await t.ctx.as([...ADMIN]);
    const ready = await api.readyRecord();
    const early = await api.newRecord();

    const unknown = await api.post(EXPORT_RESULTS, {
      results: [
        { accounting_record_id: 'accr_a', success: {} },
        { accounting_record_id: 'accr_b', failure: { error_message: 'x' } },
      ],
    });
    expect([unknown.status, unknown.body]).toEqual([
      404,
      errorBody('NOT_FOUND', {
        message: 'No accounting records have the ids accr_a, accr_b; no export result was applied.',
        details: { not_found_export_entry_source_ids: ['accr_a', 'accr_b'] },
      }),
    ]);
    const one = await api.post(EXPORT_RESULTS, { results: [{ accounting_record_id: 'accr_a', success: {} }] });
    expect(one.body.message).toBe('No accounting record has the id accr_a; no export result was applied.');
    expect(one.body.message).not.toMatch(/source/i);

    const twice = await api.post(EXPORT_RESULTS, {
      results: [
        { accounting_record_id: ready.id, success: {} },
        { accounting_record_id: ready.id, failure: { error_message: 'x' } },
      ],
    });
    expect([twice.status, twice.body]).toEqual([
      422,
      errorBody('DUPLICATE_ACCOUNTING_RECORD_IDS', {
        message: `This record is named more than once in the results: ${ready.id}. Report each record once; no export result was applied.`,
        details: { duplicate_accounting_record_ids: [ready.id] },
      }),
    ]);

    const unready = await api.post(EXPORT_RESULTS, { results: [{ accounting_record_id: early.id, success: {} }] });
    expect([unready.status, unready.body]).toEqual([
      422,
      errorBody('ACCOUNTING_RECORD_NOT_READY_FOR_EXPORT', {
        message: `Export results are taken only for records in READY_FOR_EXPORT, and this one is not: ${early.id}. No export result was applied.`,
        details: { not_ready_for_export_accounting_record_ids: [early.id] },
      }),
    ]);
  });

  it('a move to EXPORTED names the export-results operation; other refused moves say which moves there are', async () => {
    const api = await t.ctx.as([...REVIEWER]);
    const record = await api.readyRecord();
    const toExported =
      'Only an export result moves a record to EXPORTED: report it with POST /v3/accounting/records/export-results (the record must be READY_FOR_EXPORT).';

    const single = await api.post(reviewUrl(record.id), { review_status: 'EXPORTED' });
    expect([single.status, single.body]).toEqual([
      409,
      errorBody('INVALID_TRANSITION', {
        message: toExported,
        details: { from: 'READY_FOR_EXPORT', to: 'EXPORTED' },
      }),
    ]);
    const bulk = await api.post(BULK, { review_status: 'EXPORTED', records: [{ id: record.id }] });
    expect([bulk.status, bulk.body.error_code, bulk.body.details.errors]).toEqual([
      409,
      'INVALID_TRANSITION',
      [
        {
          accounting_record_id: record.id,
          error_code: 'INVALID_TRANSITION',
          message: toExported,
          reason: expect.any(String),
          from: 'READY_FOR_EXPORT',
          to: 'EXPORTED',
        },
      ],
    ]);

    const skip = await api.post(reviewUrl((await api.newRecord()).id), { review_status: 'READY_FOR_EXPORT' });
    expect([skip.status, skip.body.message]).toEqual([
      409,
      'A record in PREPARE cannot move to READY_FOR_EXPORT: records move one step at a time (PREPARE, REVIEW, READY_FOR_EXPORT, either way), and from EXPORTED back to REVIEW.',
    ]);
    const same = await api.post(reviewUrl(record.id), { review_status: 'READY_FOR_EXPORT' });
    expect([same.status, same.body.message]).toEqual([409, 'The record is already in READY_FOR_EXPORT.']);
  });
});
