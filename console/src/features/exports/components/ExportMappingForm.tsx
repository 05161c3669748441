import type { ExportMapping, Field } from '@svc/client';
import { useId, useState, type FormEvent } from 'react';
import { ErrorMessage } from '../../../components/ErrorMessage';
import { formatDateTime } from '../../../lib/format';
import { problemsByPath, useSaveExportMapping } from '../api/export-mapping';
import {
  BALANCING_ORDER,
  BALANCING_TYPES,
  draftOf,
  requestOfMapping,
  SLOT_ORDER,
  SLOTS,
  type MappingDraft,
} from '../export-mapping-draft';

interface FieldChoiceProps {
  id: string;
  label: string;
  value: string;
  fields: readonly Field[];
  none: string;
  disabled: boolean;
  problem: string | undefined;
  onChange: (value: string) => void;
}

/** A choice of one of the account's fields, or none (the default), with the service's word on it under it. */
function FieldChoice({ id, label, value, fields, none, disabled, problem, onChange }: FieldChoiceProps) {
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <select
        id={id}
        value={value}
        disabled={disabled}
        aria-invalid={problem ? true : undefined}
        aria-describedby={problem ? `${id}-error` : undefined}
        onChange={(e) => onChange(e.target.value)}
      >
        <option value="">{none}</option>
        {fields.map((f) => (
          <option key={f.svc_id} value={f.svc_id}>
            {f.name}
          </option>
        ))}
      </select>
      {problem && (
        <p className="field-error" id={`${id}-error`}>
          {problem}
        </p>
      )}
    </div>
  );
}

/**
 * The account's export mapping: the GL account field, the balancing accounts and the fields of the ERPs' dimension
 * columns. Every role that exports sees it; an admin changes it. The service checks each member and names the one
 * that is wrong, shown next to its input.
 */
export function ExportMappingForm({
  mapping,
  fields,
  mayWrite,
}: {
  mapping: ExportMapping;
  fields: readonly Field[];
  mayWrite: boolean;
}) {
  const id = useId();
  const save = useSaveExportMapping();
  const [draft, setDraft] = useState<MappingDraft>(() => draftOf(mapping));
  const [saved, setSaved] = useState(false);
  const problems = save.isError ? problemsByPath(save.error) : new Map<string, string>();
  const change = (patch: Partial<MappingDraft>) => {
    setSaved(false);
    setDraft((d) => ({ ...d, ...patch }));
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setSaved(false);
    save.mutate(requestOfMapping(draft), {
      onSuccess: (answer) => {
        setDraft(draftOf(answer));
        setSaved(true);
      },
    });
  };

  return (
    <form className="form-stack" onSubmit={submit} aria-labelledby={`${id}-title`} noValidate>
      <h2 id={`${id}-title`}>Mapping</h2>
      <p className="hint">
        Every file is booked with this mapping. {mayWrite ? '' : 'Only account admins change it. '}Last changed:{' '}
        {formatDateTime(mapping.updated_at)}.
      </p>
      <FieldChoice
        id={`${id}-gl`}
        label="GL account field"
        value={draft.accountFieldId}
        fields={fields}
        none="The field named GL Account (default)"
        disabled={!mayWrite}
        problem={problems.get('/account_field_id')}
        onChange={(value) => change({ accountFieldId: value })}
      />
      <fieldset>
        <legend>Balancing accounts</legend>
        <p className="hint" id={`${id}-balancing-hint`}>
          The account each record&rsquo;s balancing line books, as Root:Name; a number before the name is its code
          (Liabilities:800-Card), which Xero needs. Blank: the default.
        </p>
        {BALANCING_ORDER.map((type) => {
          const inputId = `${id}-balancing-${type}`;
          const problem = problems.get(`/balancing_accounts/${type}`);
          return (
            <div className="field" key={type}>
              <label htmlFor={inputId}>{BALANCING_TYPES[type]}</label>
              <input
                id={inputId}
                value={draft.balancing[type]}
                disabled={!mayWrite}
                aria-invalid={problem ? true : undefined}
                aria-describedby={[`${id}-balancing-hint`, problem ? `${inputId}-error` : null]
                  .filter(Boolean)
                  .join(' ')}
                onChange={(e) => change({ balancing: { ...draft.balancing, [type]: e.target.value } })}
              />
              {problem && (
                <p className="field-error" id={`${inputId}-error`}>
                  {problem}
                </p>
              )}
            </div>
          );
        })}
      </fieldset>
      <fieldset>
        <legend>Dimension columns</legend>
        {SLOT_ORDER.map((slot) => (
          <FieldChoice
            key={slot}
            id={`${id}-slot-${slot}`}
            label={`${SLOTS[slot].label} (${SLOTS[slot].columns})`}
            value={draft.slots[slot]}
            fields={fields}
            none={`The field named ${SLOTS[slot].label} (default)`}
            disabled={!mayWrite}
            problem={problems.get(`/dimension_fields/${slot}`)}
            onChange={(value) => change({ slots: { ...draft.slots, [slot]: value } })}
          />
        ))}
        {([0, 1] as const).map((i) => (
          <FieldChoice
            key={i}
            id={`${id}-tracking-${i}`}
            label={`Xero tracking category ${i + 1}`}
            value={draft.tracking[i]}
            fields={fields}
            none="A line's own dimensions, in order (default)"
            disabled={!mayWrite}
            problem={problems.get(`/tracking_fields/${i}`)}
            onChange={(value) => {
              const tracking: [string, string] = [...draft.tracking];
              tracking[i] = value;
              change({ tracking });
            }}
          />
        ))}
      </fieldset>
      <fieldset>
        <legend>Currency</legend>
        <p className="hint" id={`${id}-currency-hint`}>
          Xero books its base currency only, and QuickBooks Online without Multicurrency its home currency only: a
          record in another currency is refused for them. Blank: USD.
        </p>
        <div className="field">
          <label htmlFor={`${id}-home-currency`}>Home currency</label>
          <input
            id={`${id}-home-currency`}
            value={draft.homeCurrency}
            maxLength={3}
            disabled={!mayWrite}
            aria-invalid={problems.has('/home_currency') ? true : undefined}
            aria-describedby={[
              `${id}-currency-hint`,
              problems.has('/home_currency') ? `${id}-home-currency-error` : null,
            ]
              .filter(Boolean)
              .join(' ')}
            onChange={(e) => change({ homeCurrency: e.target.value })}
          />
          {problems.has('/home_currency') && (
            <p className="field-error" id={`${id}-home-currency-error`}>
              {problems.get('/home_currency')}
            </p>
          )}
        </div>
        <div className="field">
          <label>
            <input
              type="checkbox"
              checked={draft.quickbooksMulticurrency}
              disabled={!mayWrite}
              onChange={(e) => change({ quickbooksMulticurrency: e.target.checked })}
            />{' '}
            The QuickBooks Online company has Multicurrency on
          </label>
        </div>
      </fieldset>
      {save.isError && <ErrorMessage title="The mapping was not saved." error={save.error} />}
      {saved && (
        <p className="notice notice-success" role="status">
          The mapping is saved.
        </p>
      )}
      {mayWrite && (
        <div className="button-row">
          <button type="submit" className="button-primary" disabled={save.isPending}>
            {save.isPending ? 'Saving…' : 'Save mapping'}
          </button>
        </div>
      )}
    </form>
  );
}
