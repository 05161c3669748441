import type { Field } from '@svc/client';
import { useId } from 'react';
import { humanize } from '../../../lib/format';
import { RECORD_TYPES, SOURCE_TYPE_LABELS, SOURCE_TYPES, type SourceType } from '../../../lib/labels';
import type { Refusal } from '../refusals';
import type { RuleDraft } from '../rule-draft';
import { InputError, invalidProps } from './InputError';
import { LineValuesFieldset } from './LineValuesFieldset';
import { MerchantCodesInput } from './MerchantCodesInput';

const OPERATORS = ['', 'EQUALS', 'CONTAINS'] as const;
const RECEIPTS = ['', 'true', 'false'] as const;
/** The option of `options` a select answered (its own values only). */
const chosen = <T extends string>(options: readonly T[], value: string): T =>
  options.find((o) => o === value) ?? options[0]!;

const toggled = <T,>(list: readonly T[], item: T, on: boolean): T[] =>
  on ? [...list.filter((x) => x !== item), item] : list.filter((x) => x !== item);

interface ConditionsProps {
  draft: RuleDraft;
  /** The fields a line can be coded with; `allFields` names the others. */
  fields: readonly Field[];
  allFields: readonly Field[] | undefined;
  change: (patch: Partial<RuleDraft>) => void;
  errors: Refusal['byInput'];
}

/** What a record must be for the rule to apply: every condition filled in must match. */
export function ConditionsFieldset({ draft, fields, allFields, change, errors }: ConditionsProps) {
  const id = useId();
  const err = (key: string) => `${id}-${key}-error`;
  return (
    <fieldset aria-describedby={`${id}-hint`}>
      <legend>When a record matches</legend>
      <p className="hint" id={`${id}-hint`}>
        Every condition filled in must match; leave the others empty. Texts are compared without regard to case.
      </p>
      <InputError id={err('conditions')} messages={errors.conditions} />

      <fieldset>
        <legend>Source</legend>
        <div className="rule-checks">
          {SOURCE_TYPES.map((source: SourceType) => (
            <label key={source} className="check">
              <input
                type="checkbox"
                checked={draft.sourceTypes.includes(source)}
                onChange={(e) => change({ sourceTypes: toggled(draft.sourceTypes, source, e.target.checked) })}
              />
              <span>{SOURCE_TYPE_LABELS[source]}</span>
            </label>
          ))}
        </div>
        <InputError id={err('sources')} messages={errors.sourceTypes} />
      </fieldset>

      <div className="rule-grid">
        <div className="field">
          <label htmlFor={`${id}-vendor-op`}>Vendor name condition</label>
          <select
            id={`${id}-vendor-op`}
            value={draft.vendorOperator}
            onChange={(e) => change({ vendorOperator: chosen(OPERATORS, e.target.value) })}
          >
            <option value="">Any vendor</option>
            <option value="EQUALS">Is</option>
            <option value="CONTAINS">Contains</option>
          </select>
        </div>
        <div className="field">
          <label htmlFor={`${id}-vendor`}>Vendor name</label>
          <input
            id={`${id}-vendor`}
            value={draft.vendorValue}
            maxLength={255}
            disabled={draft.vendorOperator === ''}
            onChange={(e) => change({ vendorValue: e.target.value })}
            {...invalidProps(err('vendor'), errors.vendor)}
          />
          <InputError id={err('vendor')} messages={errors.vendor} />
        </div>
        <div className="field">
          <label htmlFor={`${id}-emails`}>User emails</label>
          <input
            id={`${id}-emails`}
            value={draft.userEmails}
            placeholder="a@example.com, b@example.com"
            onChange={(e) => change({ userEmails: e.target.value })}
            {...invalidProps(err('emails'), errors.userEmails)}
          />
          <InputError id={err('emails')} messages={errors.userEmails} />
        </div>
        <div className="field">
          <label htmlFor={`${id}-memo`}>Memo contains</label>
          <input
            id={`${id}-memo`}
            value={draft.memoContains}
            maxLength={255}
            onChange={(e) => change({ memoContains: e.target.value })}
            {...invalidProps(err('memo'), errors.memoContains)}
          />
          <InputError id={err('memo')} messages={errors.memoContains} />
        </div>
        <MerchantCodesInput value={draft.merchantCodes} change={change} errors={errors} />
        <div className="field">
          <label htmlFor={`${id}-receipt`}>Receipt</label>
          <select
            id={`${id}-receipt`}
            value={draft.hasReceipt}
            onChange={(e) => change({ hasReceipt: chosen(RECEIPTS, e.target.value) })}
          >
            <option value="">With or without a receipt</option>
            <option value="true">Has a receipt</option>
            <option value="false">Has no receipt</option>
          </select>
        </div>
      </div>

      <fieldset className="rule-amount">
        <legend>Amount</legend>
        <div className="rule-grid">
          {(
            [
              ['currency', 'Currency', draft.currency, ''],
              ['amountMin', 'Minimum amount', draft.amountMin, ''],
              ['amountMax', 'Maximum amount', draft.amountMax, ''],
            ] as const
          ).map(([key, label, value, placeholder]) => (
            <div className="field" key={key}>
              <label htmlFor={`${id}-${key}`}>{label}</label>
              <input
                id={`${id}-${key}`}
                value={value}
                placeholder={placeholder}
                inputMode={key === 'currency' ? 'text' : 'decimal'}
                maxLength={key === 'currency' ? 3 : 20}
                onChange={(e) => change({ [key]: e.target.value })}
                {...invalidProps(err('amount'), errors.amount)}
              />
            </div>
          ))}
        </div>
        <InputError id={err('amount')} messages={errors.amount} />
      </fieldset>

      <fieldset>
        <legend>Record types</legend>
        <div className="rule-checks">
          {RECORD_TYPES.map((type) => (
            <label key={type} className="check">
              <input
                type="checkbox"
                checked={draft.recordTypes.includes(type)}
                onChange={(e) => change({ recordTypes: toggled(draft.recordTypes, type, e.target.checked) })}
              />
              <span>{humanize(type)}</span>
            </label>
          ))}
        </div>
        <InputError id={err('types')} messages={errors.recordTypes} />
      </fieldset>
      <LineValuesFieldset
        lineValues={draft.lineValues}
        fields={fields}
        allFields={allFields}
        change={change}
        errors={errors}
      />
      {(draft.kept.user_ids || draft.kept.user_department_ids || draft.kept.user_location_ids) && (
        <p className="hint">
          The rule also has conditions on user ids, departments or locations (set through the API): they are kept.
        </p>
      )}
    </fieldset>
  );
}
