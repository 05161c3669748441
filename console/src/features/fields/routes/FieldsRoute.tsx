import { useLocation } from 'wouter';
import { useSessionScopes } from '../../auth/api/session';
import { EmptyState } from '../../../components/EmptyState';
import { ErrorMessage } from '../../../components/ErrorMessage';
import { Loading } from '../../../components/Loading';
import { PageHeading } from '../../../components/PageHeading';
import { canEditValues, canManageFields } from '../../auth/session-context';
import { useAllFields } from '../api/fields';
import { FieldsTable } from '../components/FieldsTable';
import { NewFieldForm } from '../components/NewFieldForm';

/** The account's custom fields; an admin creates new ones here. */
export function FieldsRoute() {
  const scopes = useSessionScopes();
  const fields = useAllFields();
  const [, navigate] = useLocation();
  const manage = canManageFields(scopes);

  return (
    <>
      <PageHeading title="Fields" />
      <p className="hint">
        {canEditValues(scopes)
          ? 'Open a field to search, add, change and import its values.'
          : 'Open a field to see its values. Your role can see fields and values but not change them.'}
      </p>
      {manage && <NewFieldForm onCreated={(field) => navigate(`/fields/${encodeURIComponent(field.svc_id)}`)} />}
      {fields.isPending && <Loading label="Loading fields…" />}
      {fields.isError && (
        <ErrorMessage title="The fields could not be loaded." error={fields.error}>
          <button type="button" onClick={() => void fields.refetch()}>
            Try again
          </button>
        </ErrorMessage>
      )}
      {fields.data && fields.data.length === 0 && (
        <EmptyState title="The account has no custom fields yet.">
          {manage ? <p>Create one above.</p> : <p>An account admin creates them.</p>}
        </EmptyState>
      )}
      {fields.data && fields.data.length > 0 && <FieldsTable fields={fields.data} />}
    </>
  );
}
