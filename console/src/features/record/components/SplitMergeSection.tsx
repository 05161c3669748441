import { ErrorMessage } from '../../../components/ErrorMessage';
import type { RecordViews } from '../api/record';
import type { RecordChanges } from '../routes/use-record-changes';
import { LineSplitMerge } from './LineSplitMerge';

/** Split a line into parts or merge lines into one, at the version shown. */
export function SplitMergeSection({
  views,
  changes,
  dirty,
}: {
  views: RecordViews;
  changes: RecordChanges;
  dirty: boolean;
}) {
  const { record, singleEntry } = views;
  const { split, merge, save, move, linesError } = changes;
  return (
    <section aria-labelledby="record-split-merge" className="card">
      <h2 id="record-split-merge">Split and merge lines</h2>
      {linesError && <ErrorMessage title="The lines were not changed." error={linesError} />}
      <LineSplitMerge
        key={`${record.version}`}
        singleEntry={singleEntry}
        busy={split.isPending || merge.isPending || save.isPending || move.isPending}
        blockedBy={dirty ? 'Save or discard the coding changes first.' : null}
        onSplit={(lineId, amounts) => {
          changes.resetAll();
          const number = singleEntry.line_items.findIndex((line) => line.id === lineId) + 1;
          const parts = amounts.map((amount) => ({ amount: { amount, currency: record.amount.currency } }));
          split.mutate(
            { lineId, request: { version: record.version, parts } },
            {
              onSuccess: (answer) =>
                changes.changed(
                  `Line ${number} split in ${parts.length}: the record is now at version ${answer.record.version}.`,
                ),
            },
          );
        }}
        onMerge={(lineIds) => {
          changes.resetAll();
          merge.mutate(
            { version: record.version, line_ids: lineIds },
            {
              onSuccess: (answer) =>
                changes.changed(
                  `${lineIds.length} lines merged into one: the record is now at version ${answer.record.version}.`,
                ),
            },
          );
        }}
      />
    </section>
  );
}
