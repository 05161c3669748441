import { BlockList, isIP } from 'node:net';
import { lookup } from 'node:dns/promises';

/**
 * Where webhooks may be sent (docs/webhooks.md, "Safety"): not to the service's own network. Every address a
 * target's name resolves to is checked at send time, and the connection goes to a checked address (so a name
 * that resolves elsewhere between a check and the connect gains nothing); literal addresses are refused at once.
 */

const CLASSES: [string, string[]][] = [
  ['unspecified', ['0.0.0.0/8', '::/128']],
  ['loopback', ['127.0.0.0/8', '::1/128']],
  ['private', ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7']],
  ['link-local (cloud metadata included)', ['169.254.0.0/16', 'fe80::/10']],
  ['shared address space (carrier-grade NAT, some cloud metadata)', ['100.64.0.0/10']],
  ['reserved', ['192.0.0.0/24', '198.18.0.0/15', '240.0.0.0/4', '64:ff9b::/96', '2001:db8::/32']],
  ['multicast', ['224.0.0.0/4', 'ff00::/8']],
];

const LISTS = CLASSES.map(([name, subnets]) => {
  const list = new BlockList();
  for (const subnet of subnets) {
    const [network, prefix] = subnet.split('/');
    list.addSubnet(network!, Number(prefix), network!.includes(':') ? 'ipv6' : 'ipv4');
  }
  return [name, list] as const;
});

/** ::ffff:a.b.c.d and ::ffff:xxxx:yyyy are IPv4 addresses in IPv6 clothing: judged as the IPv4 address. */
function unmapped(address: string): string {
  const dotted = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (dotted) return dotted[1]!;
  const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address);
  if (!hex) return address;
  const [hi, lo] = [parseInt(hex[1]!, 16), parseInt(hex[2]!, 16)];
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
}

/** The class of a non-public address ("loopback", "private"…), or null for an address webhooks may reach. */
export function refusedClass(address: string): string | null {
  const plain = unmapped(address);
  const family = isIP(plain);
  if (family === 0) return 'not an address';
  for (const [name, list] of LISTS) if (list.check(plain, family === 6 ? 'ipv6' : 'ipv4')) return name;
  return null;
}

/** The URL's host as an address, when it is one (IPv6 without its brackets); null for a name. */
export function literalAddress(url: URL): string | null {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return isIP(host) ? host : null;
}

export interface TargetRules {
  /** WEBHOOK_ALLOW_PRIVATE_TARGETS: private, loopback and link-local targets, and plain http, are allowed. */
  allowPrivate: boolean;
}

/**
 * Why `text` cannot be a webhook target (for a 400), or null: an absolute https URL (http too when private
 * targets are allowed) without credentials, whose host, when it is an address, is a public one.
 */
export function targetProblem(text: string, rules: TargetRules): string | null {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'must be an absolute URL';
  }
  if (url.protocol !== 'https:' && !(rules.allowPrivate && url.protocol === 'http:')) {
    return rules.allowPrivate ? 'must be an http or https URL' : 'must be an https URL';
  }
  if (url.username !== '' || url.password !== '') return 'must not carry credentials';
  const address = literalAddress(url);
  const refused = address === null || rules.allowPrivate ? null : refusedClass(address);
  return refused ? `must not name a ${refused} address (${address})` : null;
}

export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Every address of a name, as the system resolver answers it. */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolver: Resolver = (hostname) => lookup(hostname, { all: true, verbatim: true });

/** Every address the target's host resolves to, all of them checked; throws with the reason when one is refused. */
export async function resolveTarget(url: URL, rules: TargetRules, resolve: Resolver): Promise<ResolvedAddress[]> {
  const literal = literalAddress(url);
  const addresses = literal ? [{ address: literal, family: isIP(literal) }] : await resolve(url.hostname);
  if (addresses.length === 0) throw new Error(`${url.hostname} resolves to no address`);
  if (!rules.allowPrivate) {
    for (const { address } of addresses) {
      const refused = refusedClass(address);
      if (refused) {
        throw new Error(
          literal
            ? `refused: ${address} is a ${refused} address`
            : `refused: ${url.hostname} resolves to ${address}, a ${refused} address`,
        );
      }
    }
  }
  return addresses;
}
