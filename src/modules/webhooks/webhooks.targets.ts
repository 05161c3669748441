import { isIP } from 'node:net';
import { lookup } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';

/**
 * Where webhooks may be sent (docs/webhooks.md, "Safety"): public addresses only. Every address a target's name
 * resolves to is checked at send time, and the connection goes to a checked address (so a name that resolves
 * elsewhere between a check and the connect gains nothing); literal addresses are refused at once.
 *
 * Addresses are judged by ipaddr.js's special ranges (`range()`): only `unicast` is public. An IPv6 form that
 * carries an IPv4 address (mapped, IPv4-compatible, translated, NAT64, 6to4, Teredo) is judged by that address.
 */

/** What a refusal calls each range of ipaddr.js; any other name but `unicast` is 'reserved'. */
const CLASS_OF_RANGE: Readonly<Record<string, string>> = {
  unspecified: 'unspecified',
  broadcast: 'broadcast',
  loopback: 'loopback',
  private: 'private',
  uniqueLocal: 'private',
  deprecatedSiteLocal: 'private',
  linkLocal: 'link-local (cloud metadata included)',
  carrierGradeNat: 'shared address space (carrier-grade NAT, some cloud metadata)',
  multicast: 'multicast',
};

const classOfRange = (range: string): string | null =>
  range === 'unicast' ? null : (CLASS_OF_RANGE[range] ?? 'reserved');

const ipv4Of = (high: number, low: number) => new ipaddr.IPv4([high >> 8, high & 255, low >> 8, low & 255]);

/**
 * The IPv4 addresses an IPv6 address carries, by the form its range says; 'opaque' when it carries one at a place
 * that cannot be told (a local-use NAT64 prefix, RFC 8215: its operator chooses the prefix length); null for none.
 */
function embeddedIPv4(address: ipaddr.IPv6, range: string): ipaddr.IPv4[] | 'opaque' | null {
  const p = address.parts;
  const part = (i: number) => p[i] ?? 0;
  switch (range) {
    case 'ipv4Mapped': // ::ffff:a.b.c.d
    case 'rfc6145': // ::ffff:0:a.b.c.d (IPv4-translated)
      return [ipv4Of(part(6), part(7))];
    case 'rfc6052': // 64:ff9b::a.b.c.d (NAT64, RFC 6052), or the local-use 64:ff9b:1::/48 (RFC 8215)
      return part(2) === 1 ? 'opaque' : [ipv4Of(part(6), part(7))];
    case '6to4': // 2002:AABB:CCDD::/48
      return [ipv4Of(part(1), part(2))];
    case 'teredo': // 2001:0:<server>:<flags>:<port>:<client, each bit flipped>
      return [ipv4Of(part(2), part(3)), ipv4Of(part(6) ^ 0xffff, part(7) ^ 0xffff)];
    case 'unicast': // ::a.b.c.d (IPv4-compatible, deprecated): :: and ::1 have ranges of their own
      return p.slice(0, 6).every((x) => x === 0) ? [ipv4Of(part(6), part(7))] : null;
    default:
      return null;
  }
}

/** The class of a non-public address ("loopback", "private"…), or null for an address webhooks may reach. */
export function refusedClass(address: string): string | null {
  if (isIP(address) === 0) return 'not an address';
  const parsed = ipaddr.parse(address);
  if (!(parsed instanceof ipaddr.IPv6)) return classOfRange(parsed.range());
  const range: string = parsed.range();
  const inner = embeddedIPv4(parsed, range);
  if (inner === 'opaque') return 'local-use NAT64';
  if (inner === null) return classOfRange(range);
  for (const v4 of inner) {
    const refused = classOfRange(v4.range());
    if (refused) return refused;
  }
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
  /** Sandbox mode (or allowPrivate): loopback targets (127.0.0.0/8, ::1, localhost), over http too, are allowed. */
  allowLoopback?: boolean;
}

/** What a refusal adds, so that whoever runs the server knows what would allow it. */
const SETTING = 'WEBHOOK_ALLOW_PRIVATE_TARGETS=true on the server allows private targets and plain http';

/** Whether the address class is one the rules allow (null: a public address). */
const allowedClass = (refused: string | null, rules: TargetRules): boolean =>
  refused === null || rules.allowPrivate || (rules.allowLoopback === true && refused === 'loopback');

/** `localhost` and its subdomains (RFC 6761), or a loopback address: where a sandbox's local receiver listens. */
function loopbackHost(url: URL): boolean {
  const address = literalAddress(url);
  if (address !== null) return refusedClass(address) === 'loopback';
  const host = url.hostname.toLowerCase().replace(/\.$/, '');
  return host === 'localhost' || host.endsWith('.localhost');
}

/**
 * Why `text` cannot be a webhook target (for a 400), or null: an absolute https URL (http too when private
 * targets are allowed, or to a loopback host in sandbox mode) without credentials, whose host, when it is an
 * address, is a public one (or loopback in sandbox mode). The address named is the caller's own, as written in the
 * URL; a refusal names the setting that would allow it.
 */
export function targetProblem(text: string, rules: TargetRules): string | null {
  return targetRefusal(text, rules)?.message ?? null;
}

/** Why a URL is refused, for a client to put in its own words: not a URL, not https, credentials, a non-public address. */
export type TargetRefusalReason =
  'not_absolute_url' | 'scheme_not_allowed' | 'credentials_in_url' | 'address_not_public';

/** targetProblem's refusal with its reason (and, for an address, the address and its class), or null. */
export function targetRefusal(
  text: string,
  rules: TargetRules,
): { reason: TargetRefusalReason; message: string; address?: string; address_class?: string } | null {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { reason: 'not_absolute_url', message: 'must be an absolute URL' };
  }
  const plainHttpAllowed = rules.allowPrivate || (rules.allowLoopback === true && loopbackHost(url));
  if (url.protocol !== 'https:' && !(plainHttpAllowed && url.protocol === 'http:')) {
    const reason = 'scheme_not_allowed';
    if (rules.allowPrivate) return { reason, message: 'must be an http or https URL' };
    return rules.allowLoopback === true
      ? { reason, message: `must be an https URL (or http to a loopback host in sandbox mode; ${SETTING})` }
      : { reason, message: `must be an https URL (${SETTING})` };
  }
  if (url.username !== '' || url.password !== '') {
    return { reason: 'credentials_in_url', message: 'must not carry credentials' };
  }
  const address = literalAddress(url);
  const refused = address === null ? null : refusedClass(address);
  if (allowedClass(refused, rules) || address === null || refused === null) return null;
  return {
    reason: 'address_not_public',
    message: `must not name a ${refused} address (${address}); ${SETTING}`,
    address,
    address_class: refused,
  };
}

export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Every address of a name, as the system resolver answers it. */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolver: Resolver = (hostname) => lookup(hostname, { all: true, verbatim: true });

/**
 * A send refused because the target is not public. Its words name the host as the URL gives it and nothing the
 * resolver answered: not the address, not its class (the delivery log, the endpoint's disabled_reason and the
 * service's logs must not map another network for whoever points a webhook at it).
 */
export class TargetNotPublic extends Error {
  constructor(host: string) {
    super(
      `refused: ${host} is not a public address (webhooks are sent to public addresses only, unless the server runs with WEBHOOK_ALLOW_PRIVATE_TARGETS=true)`,
    );
    this.name = 'TargetNotPublic';
  }
}

/** Every address the target's host resolves to, all of them checked; throws TargetNotPublic when one is refused. */
export async function resolveTarget(url: URL, rules: TargetRules, resolve: Resolver): Promise<ResolvedAddress[]> {
  const literal = literalAddress(url);
  const addresses = literal ? [{ address: literal, family: isIP(literal) }] : await resolve(url.hostname);
  if (addresses.length === 0) throw new Error(`${url.hostname} resolves to no address`);
  // Plain http to a loopback host (sandbox mode) goes to loopback addresses only.
  const loopbackOnly = url.protocol === 'http:' && !rules.allowPrivate;
  const refused = ({ address }: ResolvedAddress) => {
    const found = refusedClass(address);
    return loopbackOnly ? found !== 'loopback' : !allowedClass(found, rules);
  };
  if (addresses.some(refused)) throw new TargetNotPublic(url.hostname);
  return addresses;
}
