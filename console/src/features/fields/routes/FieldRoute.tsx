import { Link, useLocation } from 'wouter';
import { useSessionScopes } from '../../auth/api/session';
import { ErrorMessage } from '../../../components/ErrorMessage';
import { Loading } from '../../../components/Loading';
import { RefreshFailed } from '../../../components/RefreshFailed';
import { PageHeading } from '../../../components/PageHeading';
import { isGone } from '../../../lib/errors';
import { canEditValues, canManageFields } from '../../auth/session-context';
import { useField } from '../api/fields';
import { AddValueForm } from '../components/AddValueForm';
import { CsvImport } from '../components/CsvImport';
import { FieldSettings } from '../components/FieldSettings';
import { ValuesPanel } from '../components/ValuesPanel';
import { FIELD_GROUP_LABELS } from '../labels';

/** One field: its values (search, add, change, import), and for an admin the field's own settings. */
export function FieldRoute({ id }: { id: string }) {
  const scopes = useSessionScopes();
  const field = useField(id);
  const [, navigate] = useLocation();
  const edit = canEditValues(scopes);
  const manage = canManageFields(scopes);

  if (field.isPending) return <Loading label="Loading the field…" />;
  if (field.data === undefined || isGone(field.error)) {
    return (
      <>
        <PageHeading title="Field" />
        <ErrorMessage
          title={isGone(field.error) ? `There is no field ${id} in your account.` : 'The field could not be loaded.'}
          error={field.error}
        >
          <p>
            <Link href="/fields">All fields</Link>
          </p>
        </ErrorMessage>
      </>
    );
  }
  const f = field.data;
  return (
    <>
      <p className="back-link">
        <Link href="/fields">← All fields</Link>
      </p>
      <PageHeading title={f.name} />
      <RefreshFailed what="The field" queries={[field]} />
      <p className="field-summary">
        {FIELD_GROUP_LABELS[f.group]} field
        {f.remote_id ? ` · remote id ${f.remote_id}` : ''}
        {f.is_disabled ? ' · disabled' : ''}
      </p>
      {!edit && <p className="hint">Your role can see the values but not change them.</p>}
      {edit && <AddValueForm fieldId={f.svc_id} fieldName={f.name} />}
      {edit && <CsvImport fieldId={f.svc_id} fieldName={f.name} />}
      <ValuesPanel fieldId={f.svc_id} fieldName={f.name} canEdit={edit} canDelete={manage} />
      {manage && <FieldSettings field={f} onDeleted={() => navigate('/fields')} />}
    </>
  );
}
