import type { RecordDraftRequest } from '@svc/client';

/**
 * The tab's copy of a draft the server did not take (the session had ended, the network was down): kept in the
 * tab's sessionStorage under the user and the record, and sent once the page opens the record again (after a new
 * sign-in). Never another user's: the key names the user.
 */
const keyOf = (userId: string, recordId: string) => `svc.draft.${userId}.${recordId}`;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;

function isDraft(v: unknown): v is RecordDraftRequest {
  return (
    isObject(v) &&
    typeof v.version === 'number' &&
    Array.isArray(v.lines) &&
    v.lines.every(
      (line) =>
        isObject(line) &&
        typeof line.line_id === 'string' &&
        Array.isArray(line.values) &&
        line.values.every(
          (value) =>
            isObject(value) &&
            typeof value.field_id === 'string' &&
            (typeof value.svc_id === 'string' || value.svc_id === null) &&
            typeof value.label === 'string',
        ),
    )
  );
}

export const draftBackup = {
  keep(userId: string, recordId: string, draft: RecordDraftRequest): void {
    try {
      window.sessionStorage.setItem(keyOf(userId, recordId), JSON.stringify(draft));
    } catch {
      // Storage full or refused: the server's copy is all there is.
    }
  },
  read(userId: string, recordId: string): RecordDraftRequest | null {
    try {
      const raw = window.sessionStorage.getItem(keyOf(userId, recordId));
      const parsed: unknown = raw === null ? null : JSON.parse(raw);
      return isDraft(parsed) ? parsed : null;
    } catch {
      return null;
    }
  },
  drop(userId: string, recordId: string): void {
    try {
      window.sessionStorage.removeItem(keyOf(userId, recordId));
    } catch {
      // Nothing to drop.
    }
  },
};
