import { Link } from 'wouter';
import { ErrorMessage } from '../../../components/ErrorMessage';
import { useRequiredCoding, type RecordViews } from '../api/record';
import type { RecordChanges } from '../routes/use-record-changes';
import { CodingSection } from './CodingSection';
import { RequiredCodingWarnings } from './RequiredCodingWarnings';

/** The record's coding: what approval requires, the form (with suggestions and the user's draft), a rule from it. */
export function CodingCard({
  views,
  changes,
  mayManageRules,
  onDirtyChange,
}: {
  views: RecordViews;
  changes: RecordChanges;
  mayManageRules: boolean;
  onDirtyChange: (dirty: boolean) => void;
}) {
  const id = views.record.id;
  const required = useRequiredCoding();
  const { save, accept, aids } = changes;
  return (
    <section aria-labelledby="record-coding" className="card">
      <h2 id="record-coding">Coding</h2>
      {required.isError && (
        <ErrorMessage title="The account's required coding could not be loaded." error={required.error} />
      )}
      {required.data && <RequiredCodingWarnings singleEntry={views.singleEntry} required={required.data.items} />}
      {changes.saveError && <ErrorMessage title="The coding was not saved." error={changes.saveError} />}
      {changes.acceptError && <ErrorMessage title="The suggestions were not accepted." error={changes.acceptError} />}
      <CodingSection
        views={views}
        generation={changes.generation}
        saving={save.isPending || accept.isPending}
        onDirtyChange={onDirtyChange}
        draftLoading={aids.draftLoading}
        extra={{
          ...aids.extra,
          acceptAll: {
            busy: accept.isPending,
            onAccept: (version) => {
              changes.resetAll();
              accept.mutate(version, {
                onSuccess: (answer) =>
                  changes.changed(
                    `${answer.accepted.length === 1 ? '1 suggestion' : `${answer.accepted.length} suggestions`} accepted: the record is now at version ${answer.record.version}.`,
                  ),
              });
            },
          },
        }}
        onSave={(input) => {
          changes.resetAll();
          save.mutate(input, {
            onSuccess: (answer) => {
              void aids.sync.clear();
              changes.changed(`Coding saved: the record is now at version ${answer.record.version}.`);
            },
          });
        }}
      />
      {mayManageRules && (
        <p className="hint">
          Code records like this one automatically:{' '}
          <Link href={`/coding-rules/new?from_record=${encodeURIComponent(id)}`}>Rule from this record</Link>
        </p>
      )}
    </section>
  );
}
