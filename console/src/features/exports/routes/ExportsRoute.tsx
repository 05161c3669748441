import type { ExportedFile, ExportFileRequest } from '@svc/client';
import { useState } from 'react';
import { ErrorMessage } from '../../../components/ErrorMessage';
import { PageHeading } from '../../../components/PageHeading';
import { plural } from '../../../lib/format';
import { Loading } from '../../../components/Loading';
import { RefreshFailed } from '../../../components/RefreshFailed';
import { useAllFields } from '../../fields/api/fields';
import { useCanExport, useCanSetMapping } from '../access';
import { useExportMapping } from '../api/export-mapping';
import { ExportMappingForm } from '../components/ExportMappingForm';
import { notFoundIds, refusedRecords, saveFile, useExportFile } from '../api/exports';
import { ExportForm } from '../components/ExportForm';
import { ExportRefusals } from '../components/ExportRefusals';
import { emptyDraft, MAX_IDS, requestOf, type DraftProblems, type ExportDraft } from '../export-request';

function ExportScreen() {
  const [draft, setDraft] = useState<ExportDraft>(emptyDraft);
  const [problems, setProblems] = useState<DraftProblems>({});
  const [saved, setSaved] = useState<ExportedFile | null>(null);
  const [sent, setSent] = useState<ExportFileRequest | null>(null);
  const exportFile = useExportFile();

  const send = (body: ExportFileRequest) => {
    setSaved(null);
    setSent(body);
    exportFile.mutate(body, {
      onSuccess: (file) => {
        saveFile(file);
        setSaved(file);
      },
    });
  };
  const submit = () => {
    const request = requestOf(draft);
    setProblems(request.problems ?? {});
    if (request.body) send(request.body);
  };

  const refused = exportFile.isError ? refusedRecords(exportFile.error) : [];
  const missing = exportFile.isError ? notFoundIds(exportFile.error) : [];
  const leftOut = [...(sent?.exclude_accounting_record_ids ?? []), ...refused.map((r) => r.accounting_record_id)];
  const chosenIds = sent?.accounting_record_ids;
  // Leaving the refused out helps only when something would be left and the route takes that many exclusions.
  const canLeaveOut =
    sent !== null &&
    leftOut.length <= MAX_IDS &&
    (chosenIds === undefined || chosenIds.some((id) => !leftOut.includes(id)));

  return (
    <>
      <ExportForm
        draft={draft}
        change={(patch) => setDraft((d) => ({ ...d, ...patch }))}
        problems={problems}
        pending={exportFile.isPending}
        onSubmit={submit}
      />
      <div aria-live="polite">
        {saved && (
          <p className="notice notice-success" role="status">
            Downloaded {saved.file_name}
            {saved.exported_count === null ? '' : `: ${plural(saved.exported_count, 'record')}`}. Nothing changed in
            svc; the records stay ready for export until their results are reported.
          </p>
        )}
      </div>
      {refused.length > 0 && (
        <ExportRefusals
          records={refused}
          pending={exportFile.isPending}
          {...(canLeaveOut && sent
            ? { onLeaveOut: () => send({ ...sent, exclude_accounting_record_ids: leftOut }) }
            : {})}
        />
      )}
      {missing.length > 0 && (
        <div className="notice notice-error" role="alert">
          <p className="notice-title">
            Nothing was exported: the account has no record with {missing.length === 1 ? 'the id' : 'the ids'}{' '}
            {missing.join(', ')}.
          </p>
        </div>
      )}
      {exportFile.isError && refused.length === 0 && missing.length === 0 && (
        <ErrorMessage title="The file was not exported." error={exportFile.error} />
      )}
    </>
  );
}

/** The stored mapping every file is booked with: shown to all who export, changed by an admin. */
function MappingSection() {
  const mapping = useExportMapping();
  const fields = useAllFields();
  const mayWrite = useCanSetMapping();
  if (mapping.isPending || fields.isPending) return <Loading label="Loading the mapping…" />;
  if (mapping.data === undefined || fields.data === undefined) {
    return (
      <ErrorMessage
        title="The mapping could not be loaded."
        error={mapping.data === undefined ? mapping.error : fields.error}
      >
        <button type="button" onClick={() => void Promise.all([mapping.refetch(), fields.refetch()])}>
          Try again
        </button>
      </ErrorMessage>
    );
  }
  return (
    <>
      <RefreshFailed what="The mapping" queries={[mapping, fields]} />
      <ExportMappingForm mapping={mapping.data} fields={fields.data} mayWrite={mayWrite} />
    </>
  );
}

/** The Export page: the account's records ready for export as a file for a ledger or an ERP's import. */
export function ExportsRoute() {
  const canExport = useCanExport();
  return (
    <>
      <PageHeading title="Export" />
      <p className="hint">
        Download records ready for export as a file your ledger or ERP imports. Every record in the file must be ready
        for export and have a GL account on each line; if one is not, nothing is exported and the page says why.
      </p>
      {canExport ? (
        <>
          <ExportScreen />
          <MappingSection />
        </>
      ) : (
        <p className="notice notice-info">Your role does not allow reading records, so it cannot export them.</p>
      )}
    </>
  );
}
