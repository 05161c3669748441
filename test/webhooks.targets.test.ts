import net, { type AddressInfo } from 'node:net';
import { expect, it } from 'vitest';
import { ADMIN } from './support/accounting.js';
import { describeEachDialect } from './support/context.js';
import { startReceiver, testDispatcher, WEBHOOKS, webhookUrl } from './support/webhooks.js';

/** The words a refusal adds (webhooks.targets.ts): the setting that would allow the target. */
const SETTING = 'WEBHOOK_ALLOW_PRIVATE_TARGETS=true on the server allows private targets and plain http';

const TYPES = ['accounting_record.ready_for_export'];
const LINK_LOCAL = 'link-local (cloud metadata included)';
const SHARED = 'shared address space (carrier-grade NAT, some cloud metadata)';

/** Internal addresses as a URL may spell them (WHATWG URL parsing normalises the IPv4 ones), with their class. */
const SPELLINGS: [string, string][] = [
  ['https://127.0.0.1/', 'loopback'],
  ['https://127.1/', 'loopback'],
  ['https://0x7f.0.0.1/', 'loopback'],
  ['https://0177.0.0.1/', 'loopback'],
  ['https://2130706433/', 'loopback'],
  ['https://127.255.255.254:8443/', 'loopback'],
  ['https://[::1]/', 'loopback'],
  ['https://[0:0:0:0:0:0:0:1]/', 'loopback'],
  ['https://0.0.0.0/', 'unspecified'],
  ['https://0/', 'unspecified'],
  ['https://[::]/', 'unspecified'],
  ['https://10.0.0.1/', 'private'],
  ['https://012.0.0.1/', 'private'],
  ['https://172.31.255.255/', 'private'],
  ['https://192.168.0.1/', 'private'],
  ['https://0xc0a80001/', 'private'],
  ['https://[fc00::1]/', 'private'],
  ['https://[fd12:3456::1]/', 'private'],
  ['https://169.254.169.254/', LINK_LOCAL],
  ['https://0xa9fea9fe/', LINK_LOCAL],
  ['https://[fe80::1]/', LINK_LOCAL],
  ['https://100.64.0.1/', SHARED],
  ['https://224.0.0.1/', 'multicast'],
  ['https://[ff02::1]/', 'multicast'],
  ['https://255.255.255.255/', 'broadcast'],
  ['https://198.18.0.1/', 'reserved'],
  ['https://240.0.0.1/', 'reserved'],
  ['https://[2001:db8::1]/', 'reserved'],
  ['https://[100::1]/', 'reserved'],
];

/** IPv6 forms that carry an IPv4 address: judged by that address (or refused, where it cannot be told). */
const EMBEDDED: [string, string][] = [
  ['https://[::ffff:127.0.0.1]/', 'loopback'], // IPv4-mapped
  ['https://[::ffff:a9fe:a9fe]/', LINK_LOCAL],
  ['https://[::ffff:6440:1]/', SHARED],
  ['https://[::127.0.0.1]/', 'loopback'], // IPv4-compatible (::/96)
  ['https://[::a00:1]/', 'private'],
  ['https://[::a9fe:a9fe]/', LINK_LOCAL],
  ['https://[::ffff:0:7f00:1]/', 'loopback'], // IPv4-translated (::ffff:0:0:0/96)
  ['https://[64:ff9b::127.0.0.1]/', 'loopback'], // NAT64 (64:ff9b::/96)
  ['https://[64:ff9b::a9fe:a9fe]/', LINK_LOCAL],
  ['https://[64:ff9b::c0a8:101]/', 'private'],
  ['https://[64:ff9b:1::a00:1]/', 'local-use NAT64'], // 64:ff9b:1::/48: where the IPv4 address sits is the operator's
  ['https://[64:ff9b:1:808:800:8::]/', 'local-use NAT64'],
  ['https://[2002:7f00:1::1]/', 'loopback'], // 6to4 (2002::/16)
  ['https://[2002:a9fe:a9fe::]/', LINK_LOCAL],
  ['https://[2002:c0a8:101::1]/', 'private'],
  ['https://[2001:0:4136:e378:8000:63bf:80ff:fffe]/', 'loopback'], // Teredo: its client 127.0.0.1, bits flipped
  ['https://[2001:0:4136:e378:8000:63bf:f5ff:fffe]/', 'private'], // Teredo: its client 10.0.0.1
  ['https://[2001:0:a00:1:8000:63bf:f7f7:f7f7]/', 'private'], // Teredo: its server 10.0.0.1
];

/** The same forms carrying a public address: they may be targets. */
const EMBEDDED_PUBLIC = [
  'https://[::ffff:8.8.8.8]/',
  'https://[64:ff9b::8.8.8.8]/',
  'https://[2002:808:808::1]/',
  'https://[2001:0:4136:e378:8000:63bf:f7f7:f7f7]/', // Teredo: server 65.54.227.120, client 8.8.8.8
];

describeEachDialect('webhook targets (default configuration: public addresses only)', (t) => {
  it('refuses every spelling of an internal address, and IPv6 forms that embed one by the address they embed', async () => {
    const api = await t.ctx.as(['webhooks.write']);
    const problems: [string, unknown][] = [];
    for (const [url] of [...SPELLINGS, ...EMBEDDED]) {
      const res = await api.post(WEBHOOKS, { url, event_types: TYPES });
      problems.push([url, res.status === 400 ? res.body.details.errors : res.status]);
    }
    expect(problems).toEqual(
      [...SPELLINGS, ...EMBEDDED].map(([url, kind]) => [
        url,
        [
          {
            path: '/url',
            message: `must not name a ${kind} address (${new URL(url).hostname.replace(/^\[|\]$/g, '')}); ${SETTING}`,
          },
        ],
      ]),
    );
    expect((await api.get(WEBHOOKS)).body.items).toEqual([]);

    for (const url of EMBEDDED_PUBLIC) {
      const res = await api.create(WEBHOOKS, { url, event_types: TYPES });
      expect([url, res.status, res.body.url]).toEqual([url, 200, url]);
    }
  });

  it('refuses at send time a name that resolves to an IPv6 form embedding an internal address, and sends nothing', async () => {
    const api = await t.ctx.as([...ADMIN, 'webhooks.write']);
    const receiver = await startReceiver();
    const answers: Record<string, string> = {
      'compat.example': '::7f00:1',
      'translated.example': '::ffff:0:a00:7',
      'nat64.example': '64:ff9b:1::a9fe:a9fe',
      '6to4.example': '2002:a9fe:a9fe::1',
      'teredo.example': '2001:0:4136:e378:8000:63bf:80ff:fffe',
    };
    const hooks: Record<string, string> = {};
    for (const host of Object.keys(answers)) {
      const res = await api.create(WEBHOOKS, { url: `https://${host}/hooks`, event_types: TYPES });
      expect(res.status, res.text).toBe(200);
      hooks[host] = res.body.id;
    }
    await api.readyRecord();
    const dispatcher = testDispatcher(t.ctx.db, {
      allowPrivateTargets: false,
      resolve: async (host) => [{ address: answers[host] ?? '8.8.8.8', family: 6 }],
    });
    expect(await dispatcher.runOnce()).toMatchObject({ attempted: 5, delivered: 0 });
    expect(receiver.received).toEqual([]);
    for (const [host, id] of Object.entries(hooks)) {
      const log = (await api.get(`${webhookUrl(id)}/attempts`)).body.items;
      expect(
        log.map((a: any) => [a.status_code, a.error]),
        host,
      ).toEqual([
        [
          null,
          `refused: ${host} is not a public address (webhooks are sent to public addresses only, unless the server runs with WEBHOOK_ALLOW_PRIVATE_TARGETS=true)`,
        ],
      ]);
    }
  });
});

describeEachDialect(
  'webhook targets (WEBHOOK_ALLOW_PRIVATE_TARGETS=true)',
  (t) => {
    it('allows the internal addresses and the IPv6 forms that embed them', async () => {
      const api = await t.ctx.as(['webhooks.write']);
      for (const [url] of [...SPELLINGS, ...EMBEDDED]) {
        const res = await api.create(WEBHOOKS, { url, event_types: TYPES });
        expect([url, res.status]).toEqual([url, 200]);
        expect((await api.delete(webhookUrl(res.body.id))).status).toBe(200); // the account's cap is 20
      }
    });

    it('connects to the address its one lookup answered, never asking the name again (DNS rebinding)', async () => {
      const api = await t.ctx.as([...ADMIN, 'webhooks.write']);
      const receiver = await startReceiver();
      const port = new URL(receiver.url).port;
      // A .invalid name never resolves: only the dispatcher's resolver knows it. Its first answer is the receiver; a
      // second lookup, made by anyone, would get an address where nothing listens.
      await api.create(WEBHOOKS, { url: `http://rebind.invalid:${port}/hooks`, event_types: TYPES });
      await api.readyRecord();
      const lookups: string[] = [];
      const dispatcher = testDispatcher(t.ctx.db, {
        resolve: async (host) => {
          lookups.push(host);
          return [{ address: lookups.length === 1 ? '127.0.0.1' : '127.0.0.2', family: 4 }];
        },
      });
      expect(await dispatcher.runOnce()).toMatchObject({ attempted: 1, delivered: 1 });
      expect(lookups).toEqual(['rebind.invalid']);
      expect(receiver.received.map((r) => r.headers.host)).toEqual([`rebind.invalid:${port}`]);
    });

    it("keeps the words of a failed connection but not the address it tried (Node's own words name it)", async () => {
      const api = await t.ctx.as([...ADMIN, 'webhooks.write']);
      const closed = net.createServer();
      await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
      const port = (closed.address() as AddressInfo).port;
      await new Promise((resolve) => closed.close(resolve)); // nothing listens there now
      const hook = await api.create(WEBHOOKS, { url: `http://svc-test.invalid:${port}/hooks`, event_types: TYPES });
      await api.readyRecord();
      const dispatcher = testDispatcher(t.ctx.db, { resolve: async () => [{ address: '127.0.0.1', family: 4 }] });
      expect(await dispatcher.runOnce()).toMatchObject({ attempted: 1, delivered: 0 });
      const log = (await api.get(`${webhookUrl(hook.body.id)}/attempts`)).body.items;
      expect(log.map((a: any) => [a.status_code, a.error])).toEqual([[null, 'connection refused (ECONNREFUSED)']]);
    });
  },
  { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' },
);
