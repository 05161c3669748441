import { SvcApiError } from '@svc/client';

/** How a refused address's class (details.url_refused.address_class) reads in a sentence. */
const CLASS_WORDS: Readonly<Record<string, string>> = {
  loopback: 'is the server’s own address (loopback)',
  private: 'is on a private network',
  'link-local (cloud metadata included)': 'is a link-local address, such as a cloud’s metadata service',
  'shared address space (carrier-grade NAT, some cloud metadata)': 'is in a shared (carrier-grade NAT) range',
  unspecified: 'is the unspecified address',
};

/**
 * Why the service refused a webhook URL, in plain words (from its details.url_refused: the server decides, this
 * only says it); null when the error is not a refused URL.
 */
export function urlRefusalWords(error: unknown): string | null {
  if (!(error instanceof SvcApiError) || error.error_code !== 'INVALID_REQUEST') return null;
  const why: unknown = error.details?.url_refused;
  if (typeof why !== 'object' || why === null) return null;
  const reason = 'reason' in why ? why.reason : undefined;
  const address = 'address' in why ? why.address : undefined;
  const addressClass = 'address_class' in why ? why.address_class : undefined;
  switch (reason) {
    case 'not_absolute_url':
      return 'This is not a complete web address. Write it in full, starting with https://, for example https://erp.example.com/svc-webhooks.';
    case 'scheme_not_allowed':
      return 'The address must start with https://: events are only sent over an encrypted connection.';
    case 'credentials_in_url':
      return 'Take the user name and password out of the address: each event is signed instead, so the receiver can check it comes from svc.';
    case 'address_not_public': {
      const words = (typeof addressClass === 'string' && CLASS_WORDS[addressClass]) || 'is not a public address';
      return `${String(address)} ${words}. Events are only sent to addresses reachable on the public internet.`;
    }
    default:
      return null;
  }
}
