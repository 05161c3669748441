import { type Kysely } from 'kysely';
import { expect, it } from 'vitest';
import { DISABLE_AFTER } from '../src/modules/webhooks/webhooks.dispatcher.js';
import { describeEachDialect } from './support/context.js';
import {
  attemptsOf,
  DELIVERY_SCOPES,
  startReceiver,
  subscribe,
  testDispatcher,
  WEBHOOKS,
  webhookUrl,
} from './support/webhooks.js';

describeEachDialect('webhook delivery: targets refused at send time (default configuration)', (t) => {
  it('refuses a name that resolves to a loopback or private address at every attempt, sends nothing, and tells no address', async () => {
    const api = await t.ctx.as(DELIVERY_SCOPES);
    const receiver = await startReceiver();
    const port = new URL(receiver.url).port;
    const local = await subscribe(api, `https://localhost:${port}/hooks`);
    const internal = await subscribe(api, 'https://erp.internal.example/hooks');
    await api.readyRecord();
    const logged: Record<string, unknown>[] = [];
    const dispatcher = testDispatcher(t.ctx.db, {
      allowPrivateTargets: false,
      log: {
        info: (obj, msg) => logged.push({ ...obj, msg }),
        warn: (obj, msg) => logged.push({ ...obj, msg }),
      },
      resolve: async (host) =>
        host === 'erp.internal.example'
          ? [
              { address: '8.8.8.8', family: 4 }, // public (203.0.113.0/24 is documentation space: reserved)
              { address: '10.0.0.7', family: 4 },
            ]
          : [{ address: '127.0.0.1', family: 4 }],
    });
    const notPublic = (host: string) =>
      `refused: ${host} is not a public address (webhooks are sent to public addresses only, unless the server runs with WEBHOOK_ALLOW_PRIVATE_TARGETS=true)`;
    expect(await dispatcher.runOnce()).toMatchObject({ attempted: 2, delivered: 0 });
    expect(receiver.received).toEqual([]);
    expect((await attemptsOf(api, local.id)).map((a) => [a.status_code, a.error])).toEqual([
      [null, notPublic('localhost')],
    ]);
    expect((await attemptsOf(api, internal.id)).map((a) => a.error)).toEqual([notPublic('erp.internal.example')]);
    // Refused again at the retry: the check is made at every send.
    dispatcher.advance(60);
    await dispatcher.runOnce();
    expect(await attemptsOf(api, local.id)).toHaveLength(2);
    expect(receiver.received).toEqual([]);

    // Failing five days: disabled, and the reason quotes the last attempt's words, which name no address either.
    dispatcher.advance(DISABLE_AFTER / 1e6);
    await dispatcher.runOnce();
    const disabled = (await api.get(webhookUrl(internal.id))).body;
    expect(disabled.status).toBe('DISABLED');
    expect(disabled.disabled_reason).toContain(`the last one: ${notPublic('erp.internal.example')}.`);
    const stored = await (t.ctx.db.direct as Kysely<any>)
      .selectFrom('webhook_attempts')
      .select('error')
      .where('account_id', '=', api.accountId)
      .execute();
    expect(stored.map((r) => r.error)).toEqual(
      Array(6).fill(expect.stringMatching(/^refused: [a-z.]+ is not a public/)),
    );

    // The operator's log says that a target was refused, with the attempt's words.
    const refusals = logged.filter((l) => l.msg === 'webhook target refused: not a public address');
    expect(refusals).toHaveLength(6);
    expect(refusals[0]).toEqual({
      account_id: api.accountId,
      webhook_id: expect.any(String),
      event_id: expect.any(String),
      error: expect.stringMatching(/^refused: [a-z.]+ is not a public address/),
      msg: 'webhook target refused: not a public address',
    });
    // Nothing answered, stored or logged tells what the names resolve to, nor the class of the address.
    const told = JSON.stringify([
      await attemptsOf(api, local.id),
      await attemptsOf(api, internal.id),
      (await api.get(WEBHOOKS)).body,
      stored,
      logged,
    ]);
    for (const secret of ['127.0.0.1', '10.0.0.7', '8.8.8.8', 'loopback', 'private', 'resolves to']) {
      expect(told).not.toContain(secret);
    }
  });
});
