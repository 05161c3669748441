import { useSearch, useLocation } from 'wouter';
import { useSessionScopes } from '../../auth/api/session';
import { ErrorMessage } from '../../../components/ErrorMessage';
import { Loading } from '../../../components/Loading';
import { RefreshFailed } from '../../../components/RefreshFailed';
import { PageHeading } from '../../../components/PageHeading';
import { recordTitle } from '../../../lib/labels';
import { useAllFields } from '../../fields/api/fields';
import { useCodingFields, useRecord } from '../../record/api/record';
import { useCreateRule } from '../api/rules';
import { RuleForm } from '../components/RuleForm';
import { canManageRules } from '../roles';
import { draftFromRecord, emptyDraft, type RuleDraft } from '../rule-draft';
import '../coding-rules.css';

function NewRuleForm({ initial }: { initial: RuleDraft }) {
  const [, navigate] = useLocation();
  const fields = useCodingFields();
  const allFields = useAllFields();
  const create = useCreateRule();
  if (fields.isPending) return <Loading label="Loading the fields…" />;
  if (fields.data === undefined) return <ErrorMessage title="The fields could not be loaded." error={fields.error} />;
  return (
    <>
      <RefreshFailed what="The fields" queries={[fields]} />
      <RuleForm
        initial={initial}
        fields={fields.data}
        allFields={allFields.data}
        submitLabel="Save rule"
        pendingLabel="Saving…"
        pending={create.isPending}
        saveError={create.error}
        onResetSave={() => create.reset()}
        onSave={(name, body) =>
          create.mutate(
            { name, ...body },
            { onSuccess: (rule) => navigate('/coding-rules', { state: { saved: `${rule.name} is saved.` } }) },
          )
        }
      />
    </>
  );
}

/** "Rule from this record": the form filled in from the record's vendor, source and agreed coding. */
function FromRecord({ recordId }: { recordId: string }) {
  const record = useRecord(recordId);
  if (record.isPending) return <Loading label="Loading the record…" />;
  if (record.data === undefined) {
    return <ErrorMessage title="The record could not be loaded." error={record.error} />;
  }
  const { singleEntry } = record.data;
  return (
    <>
      <p className="hint">
        Filled in from the record {recordTitle(singleEntry)} (<code>{singleEntry.id}</code>): its vendor, its source and
        the values all its lines agree on. Change what you need, preview, then save.
      </p>
      <NewRuleForm initial={draftFromRecord(singleEntry)} />
    </>
  );
}

/** A new coding rule (account admins), empty or from a record (?from_record=…). */
export function NewRuleRoute() {
  const scopes = useSessionScopes();
  const from = new URLSearchParams(useSearch()).get('from_record');
  return (
    <>
      <PageHeading title="New coding rule" />
      {!canManageRules(scopes) ? (
        <p className="notice notice-info">Only an account admin creates coding rules.</p>
      ) : from ? (
        <FromRecord recordId={from} />
      ) : (
        <NewRuleForm initial={emptyDraft()} />
      )}
    </>
  );
}
