import { useCallback, useRef, useState } from 'react';

/** How many times one receipt's links are read again in a row before the page says it cannot show it. */
const REREADS = 2;

/**
 * Signed links expire (RECEIPT_LINK_TTL_SECONDS, 15 minutes by default): a link that fails to load makes the page
 * read the record again (fresh links) rather than show a broken image. A receipt whose fresh links fail too is
 * given up on after REREADS reads, with a way to try again; one that loads is forgiven its failures.
 */
export function useLinkRecovery(reread: () => Promise<unknown>) {
  const failures = useRef(new Map<string, number>());
  const [givenUp, setGivenUp] = useState<ReadonlySet<string>>(new Set());

  const failed = useCallback(
    (receiptId: string) => {
      const count = (failures.current.get(receiptId) ?? 0) + 1;
      failures.current.set(receiptId, count);
      if (count > REREADS) {
        setGivenUp((was) => new Set(was).add(receiptId));
        return;
      }
      void reread();
    },
    [reread],
  );

  const loaded = useCallback((receiptId: string) => {
    failures.current.delete(receiptId);
  }, []);

  const retry = useCallback(
    (receiptId: string) => {
      failures.current.delete(receiptId);
      setGivenUp((was) => {
        const next = new Set(was);
        next.delete(receiptId);
        return next;
      });
      void reread();
    },
    [reread],
  );

  return { failed, loaded, retry, givenUp };
}

export type LinkRecovery = ReturnType<typeof useLinkRecovery>;
