import { expect, it } from 'vitest';
import { ADMIN } from './support/accounting.js';
import { describeEachDialect } from './support/context.js';
import { errorBody, ISO_MICROS } from './support/expect.js';
import { startReceiver, testDispatcher, WEBHOOKS, webhookUrl } from './support/webhooks.js';

const SCOPES = [...ADMIN, 'webhooks.write', 'events.read'] as const;
const READY = 'accounting_record.ready_for_export';
const COMPAT = 'ACCOUNTING_RECORD_READY_FOR_EXPORT';
const VALUES = 'field_values.changed';

describeEachDialect(
  "a webhook endpoint's delivery log by event type",
  (t) => {
    it("names each attempt's event type, keeps only one type's attempts when asked, and pages them by a cursor bound to the type", async () => {
      const api = await t.ctx.as(SCOPES);
      const receiver = await startReceiver();
      const hook = await api.create(WEBHOOKS, { url: receiver.url, event_types: [READY, VALUES] });
      expect(hook.status, hook.text).toBe(200);
      const fieldId = await api.newField();
      const dispatcher = testDispatcher(t.ctx.db);
      // One event per round, so that the log's order (newest attempt first) is the events' order reversed.
      await api.readyRecord();
      await dispatcher.runOnce();
      await api.newValues(fieldId, [{ value: 'Travel' }]);
      await dispatcher.runOnce();
      await api.readyRecord();
      await dispatcher.runOnce();
      const feed = (await api.get('/v1/events', { type: [READY, VALUES] })).body.items as any[];
      expect(feed.map((e) => e.type)).toEqual([READY, VALUES, READY]);
      const attemptOf = (event: any) => ({
        id: expect.any(String),
        event_id: event.id,
        event_type: event.type,
        attempted_at: expect.stringMatching(ISO_MICROS),
        status_code: 200,
        succeeded: true,
        latency_ms: expect.any(Number),
        response_excerpt: 'thanks',
        error: null,
      });
      const url = `${webhookUrl(hook.body.id)}/attempts`;

      const all = await api.get(url);
      expect([all.status, all.body]).toEqual([
        200,
        { items: [...feed].reverse().map(attemptOf), has_next_page: false, next_cursor: null },
      ]);

      const values = await api.get(url, { event_type: VALUES });
      expect([values.status, values.body]).toEqual([
        200,
        { items: [attemptOf(feed[1])], has_next_page: false, next_cursor: null },
      ]);

      const first = await api.get(url, { event_type: READY, limit: '1' });
      expect([first.status, first.body]).toEqual([
        200,
        { items: [attemptOf(feed[2])], has_next_page: true, next_cursor: expect.any(String) },
      ]);
      const second = await api.get(url, { event_type: READY, limit: '1', cursor: first.body.next_cursor });
      expect([second.status, second.body]).toEqual([
        200,
        { items: [attemptOf(feed[0])], has_next_page: false, next_cursor: null },
      ]);
      const otherType = await api.get(url, { event_type: COMPAT, cursor: first.body.next_cursor });
      expect([otherType.status, otherType.body]).toEqual([400, errorBody('INVALID_CURSOR')]);
      const noType = await api.get(url, { cursor: first.body.next_cursor });
      expect([noType.status, noType.body]).toEqual([400, errorBody('INVALID_CURSOR')]);

      // With event_id too: both apply.
      const both = await api.get(url, { event_type: READY, event_id: feed[1].id });
      expect([both.status, both.body]).toEqual([200, { items: [], has_next_page: false, next_cursor: null }]);

      const unknown = await api.get(url, { event_type: 'record.approved' });
      expect([unknown.status, unknown.body.error_code, unknown.body.details.errors[0].path]).toEqual([
        400,
        'INVALID_REQUEST',
        '/query/event_type',
      ]);
    });
  },
  { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' },
);
