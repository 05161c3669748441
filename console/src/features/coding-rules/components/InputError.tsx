/** A refusal's words next to the input they are about (its id is in the input's aria-describedby). */
export function InputError({ id, messages }: { id: string; messages: string[] | undefined }) {
  if (!messages || messages.length === 0) return null;
  return (
    <p className="field-error" id={id}>
      {messages.join(' ')}
    </p>
  );
}

/** The aria attributes of an input a refusal may be about. */
export const invalidProps = (errorId: string, messages: string[] | undefined, hintId?: string) => {
  const invalid = (messages?.length ?? 0) > 0;
  const describedBy = [hintId, invalid ? errorId : undefined].filter(Boolean).join(' ');
  return {
    'aria-invalid': invalid ? true : undefined,
    ...(describedBy ? { 'aria-describedby': describedBy } : {}),
  };
};
