import { useId } from 'react';
import type { Refusal } from '../refusals';
import { merchantCodeProblem, type RuleDraft } from '../rule-draft';
import { InputError, invalidProps } from './InputError';

/**
 * Merchant category codes (ISO 18245, four digits) the record's must be one of: checked as typed, the problem shown
 * next to the input; the service checks them again on preview and save.
 */
export function MerchantCodesInput({
  value,
  change,
  errors,
}: {
  value: string;
  change: (patch: Partial<RuleDraft>) => void;
  errors: Refusal['byInput'];
}) {
  const id = useId();
  const typed = merchantCodeProblem(value);
  const messages = [...(typed ? [typed] : []), ...(errors.merchantCodes ?? [])];
  return (
    <div className="field">
      <label htmlFor={`${id}-mcc`}>Merchant category codes</label>
      <input
        id={`${id}-mcc`}
        value={value}
        inputMode="numeric"
        placeholder="5812, 5814"
        onChange={(e) => change({ merchantCodes: e.target.value })}
        {...invalidProps(`${id}-mcc-error`, messages, `${id}-mcc-hint`)}
      />
      <p className="hint" id={`${id}-mcc-hint`}>
        Four digits each, separated by commas or spaces (card records).
      </p>
      <InputError id={`${id}-mcc-error`} messages={messages} />
    </div>
  );
}
