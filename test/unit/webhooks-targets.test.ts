import { expect, it } from 'vitest';
import { resolveTarget, TargetNotPublic } from '../../src/modules/webhooks/webhooks.targets.js';

/**
 * The send-time check on what a name resolves to, without a connection (no address here is ever dialled). These are
 * the cases where the maintained SSRF agents (request-filtering-agent 3.2.1, ssrf-req-filter 1.1.1: ipaddr.js's
 * `range() !== 'unicast'` on each address) judge otherwise, and why svc keeps its own check (docs/webhooks.md).
 */
const rules = { allowPrivate: false };
const answering =
  (...addresses: string[]) =>
  async () =>
    addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
const target = new URL('https://erp.example.com/hooks');

it('refuses an IPv4-compatible IPv6 address (::/96) that carries an internal one', async () => {
  // ipaddr.js calls ::/96 `unicast`: the agents would connect.
  for (const address of ['::7f00:1', '::a00:1', '::a9fe:a9fe']) {
    await expect(resolveTarget(target, rules, answering(address)), address).rejects.toBeInstanceOf(TargetNotPublic);
  }
});

it('sends to an IPv6 form that carries a public IPv4 address, as the API accepts it at create', async () => {
  // ipaddr.js gives these ranges of their own (ipv4Mapped, rfc6052, 6to4, teredo): the agents would refuse them.
  for (const address of [
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
    '2002:808:808::1',
    '2001:0:4136:e378:8000:63bf:f7f7:f7f7',
  ]) {
    expect(await resolveTarget(target, rules, answering(address)), address).toEqual([{ address, family: 6 }]);
  }
});

it('refuses a name when any one of its addresses is internal, whichever comes first', async () => {
  for (const addresses of [
    ['8.8.8.8', '10.0.0.7'],
    ['::ffff:a9fe:a9fe', '8.8.8.8'],
  ]) {
    await expect(resolveTarget(target, rules, answering(...addresses))).rejects.toThrow(
      `refused: erp.example.com is not a public address (webhooks are sent to public addresses only, unless the server runs with WEBHOOK_ALLOW_PRIVATE_TARGETS=true)`,
    );
  }
});
