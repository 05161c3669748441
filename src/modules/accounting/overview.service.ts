import type { Db } from '../../db/database.js';
import { nowMicros } from '../../lib/clock.js';
import type { Tenant } from '../auth/auth.service.js';
import { AccountingRecordShape, type AccountingRecordDto } from './accounting.schemas.js';
import type { SourceType } from './ledger.js';
import type { ReviewStatus } from './lifecycle.js';
import { overviewRepository } from './overview.repository.js';
import { OVERVIEW_DAYS, WAITING } from './overview.schemas.js';

const DAY = 86_400_000_000;

interface Overview {
  counts: { review_status: ReviewStatus; source_type: SourceType; count: number }[];
  waiting_longest: AccountingRecordDto[];
  failed_exports: number;
  exports_per_day: { date: string; exported: number; failed: number }[];
}

export const overviewService = {
  /** What the console's overview shows, read from one snapshot. */
  async overview(db: Db, tenant: Tenant, now = nowMicros()): Promise<Overview> {
    const today = Math.floor(now / DAY);
    const first = today - (OVERVIEW_DAYS - 1);
    return db.read(async (ex) => {
      const counts = await overviewRepository.counts(ex, tenant.accountId);
      const waiting = [
        ...(await overviewRepository.unchangedLongest(ex, tenant.accountId, 'PREPARE', WAITING)),
        ...(await overviewRepository.unchangedLongest(ex, tenant.accountId, 'REVIEW', WAITING)),
      ]
        .sort((a, b) => a.updated_at - b.updated_at || (a.id < b.id ? -1 : 1))
        .slice(0, WAITING);
      const perDay = await overviewRepository.exportsPerDay(ex, tenant.accountId, first * DAY);
      const days = Array.from({ length: OVERVIEW_DAYS }, (_, i) => ({
        date: new Date((first + i) * 86_400_000).toISOString().slice(0, 10),
        exported: 0,
        failed: 0,
      }));
      for (const row of perDay) {
        const day = days[row.day - first];
        if (!day) continue;
        if (row.type === 'EXPORT_SUCCEEDED') day.exported += row.n;
        else day.failed += row.n;
      }
      return {
        counts: counts.map((c) => ({ review_status: c.review_status, source_type: c.source_type, count: c.records })),
        waiting_longest: waiting.map((row) =>
          AccountingRecordShape.toObject(row, { singleEntry: false, accountId: tenant.accountId }),
        ),
        failed_exports: await overviewRepository.failedExports(ex, tenant.accountId),
        exports_per_day: days,
      };
    });
  },
};
