import { EmptyState } from '../../../components/EmptyState';
import { ErrorMessage } from '../../../components/ErrorMessage';
import { Loading } from '../../../components/Loading';
import { RefreshFailed } from '../../../components/RefreshFailed';
import { useCodingFields, type RecordViews } from '../api/record';
import { CodingForm } from './CodingForm';

type FormProps = Parameters<typeof CodingForm>[0];

/** The coding form when the server says the user may code this record now (views.coding); otherwise its reason. */
export function CodingSection({
  views,
  generation,
  saving,
  onSave,
  onDirtyChange,
  extra,
  draftLoading = false,
}: {
  views: RecordViews;
  /** A new form (edits dropped) after each save and each reload. */
  generation: number;
  saving: boolean;
  onSave: Parameters<typeof CodingForm>[0]['onSave'];
  onDirtyChange: (dirty: boolean) => void;
  /** Suggestions, the user's draft and "Accept all suggestions" (RecordRoute). */
  extra?: Pick<FormProps, 'suggestions' | 'restored' | 'onDraftChange' | 'draftStatus' | 'onDiscard' | 'acceptAll'>;
  /** The user's draft is still being read: the form waits for it, so that it opens on it. */
  draftLoading?: boolean;
}) {
  const fields = useCodingFields();
  const { singleEntry, coding } = views;
  if (!coding.editable) return <p className="muted">{coding.reason}</p>;
  if (fields.isPending) return <Loading label="Loading the fields…" />;
  if (draftLoading) return <Loading label="Looking for your draft…" />;
  if (fields.data === undefined) return <ErrorMessage title="The fields could not be loaded." error={fields.error} />;
  if (fields.data.length === 0) {
    return <EmptyState title="The account has no fields to code lines with yet." />;
  }
  return (
    <>
      <RefreshFailed what="The fields" queries={[fields]} />
      <CodingForm
        key={generation}
        singleEntry={singleEntry}
        fields={fields.data}
        saving={saving}
        onSave={onSave}
        onDirtyChange={onDirtyChange}
        {...extra}
      />
    </>
  );
}
