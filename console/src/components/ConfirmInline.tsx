/**
 * A confirmation in place of the button that asked for it (a table row's Revoke, Rotate…): what will happen, the
 * confirming button (focused) and a way back. `subject` names the object in the accessible names
 * ("Revoke cli_…?", "Yes, revoke cli_…").
 */
export function ConfirmInline({
  question,
  warning,
  confirm,
  confirmAccessibleName,
  busyLabel,
  busy,
  danger = false,
  onConfirm,
  onCancel,
}: {
  /** The group's accessible name: "Revoke cli_…?" */
  question: string;
  warning: string;
  /** The confirming button's words: "Yes, revoke" */
  confirm: string;
  /** Its accessible name, which must contain its words: "Yes, revoke cli_…" */
  confirmAccessibleName: string;
  busyLabel: string;
  busy: boolean;
  danger?: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  return (
    <div className="row-actions" role="group" aria-label={question}>
      <span>{warning}</span>
      <button
        type="button"
        className={danger ? 'button-danger' : 'button-primary'}
        autoFocus
        aria-label={confirmAccessibleName}
        disabled={busy}
        onClick={onConfirm}
      >
        {busy ? busyLabel : confirm}
      </button>
      <button type="button" disabled={busy} onClick={onCancel}>
        Keep it
      </button>
    </div>
  );
}
