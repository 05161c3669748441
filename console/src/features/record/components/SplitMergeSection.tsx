import { useRef } from 'react';
import { ErrorMessage } from '../../../components/ErrorMessage';
import type { RecordViews } from '../api/record';
import type { RecordChanges } from '../routes/use-record-changes';
import { LineSplitMerge } from './LineSplitMerge';

/**
 * Split a line into parts or merge lines into one, at the version shown. What the user has typed or selected stays
 * while the record changes under it (their own coding saved, someone else's change read): only their own split or
 * merge, once made, clears it; a refused one keeps it to try again.
 */
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
  const heading = useRef<HTMLHeadingElement>(null);
  return (
    <section aria-labelledby="record-split-merge" className="card">
      <h2 id="record-split-merge" ref={heading} tabIndex={-1}>
        Split and merge lines
      </h2>
      {linesError && <ErrorMessage title="The lines were not changed." error={linesError} />}
      <LineSplitMerge
        heading={heading}
        singleEntry={singleEntry}
        busy={split.isPending || merge.isPending || save.isPending || move.isPending}
        blockedBy={dirty ? 'Save or discard the coding changes first.' : null}
        onSplit={(lineId, amounts) => {
          changes.resetAll();
          const number = singleEntry.line_items.findIndex((line) => line.id === lineId) + 1;
          const parts = amounts.map((amount) => ({ amount: { amount, currency: record.amount.currency } }));
          return split.mutateAsync({ lineId, request: { version: record.version, parts } }).then(
            (answer) => {
              changes.changed(
                `Line ${number} split in ${parts.length}: the record is now at version ${answer.record.version}.`,
              );
              return true;
            },
            () => false, // said by linesError or the conflict notice
          );
        }}
        onMerge={(lineIds) => {
          changes.resetAll();
          return merge.mutateAsync({ version: record.version, line_ids: lineIds }).then(
            (answer) => {
              changes.changed(
                `${lineIds.length} lines merged into one: the record is now at version ${answer.record.version}.`,
              );
              return true;
            },
            () => false,
          );
        }}
      />
    </section>
  );
}
