import { afterEach, expect, it } from 'vitest';
import { turnOff } from '../../src/speed/switches.js';
import { ADMIN } from '../support/accounting.js';
import { describeEachDialect } from '../support/context.js';
import { valuesUrl } from '../support/field-values.js';
import { startReceiver, testDispatcher, WEBHOOKS } from '../support/webhooks.js';

const BULK = '/internal/v1/accounting/records/review-status';

/**
 * The planner hints (src/speed/hints.ts) change a statement's plan, never its answer: each flow that runs a hinted
 * statement answers the same with the hint and without it (the suites run them with every hint on; here each is
 * also run with its hint off).
 */
describeEachDialect(
  'planner hints',
  (t) => {
    afterEach(() => turnOff(undefined));

    it('a batch update of values answers the same with the key probe and without (hint-key-probe)', async () => {
      const api = await t.ctx.as(['fields.write', 'field_values.write']);
      const seen = [];
      for (const off of ['', 'hint-key-probe']) {
        turnOff(off);
        const fieldId = await api.newField();
        await api.newValues(fieldId, [
          { value: 'A', remote_id: 'R1' },
          { value: 'B', remote_id: 'R2' },
          { value: 'C', remote_id: 'R3' },
        ]);
        const res = await api.put(valuesUrl(fieldId), {
          items: [
            { remote_id: 'R1', data: { value: 'A2' } },
            { remote_id: 'R3', data: { is_disabled: true } },
          ],
        });
        expect(res.status, res.text).toBe(200);
        const page = await api.get(valuesUrl(fieldId));
        seen.push(page.body.items.map((v: any) => [v.remote_id, v.value, v.is_disabled]));
      }
      expect(seen[0]).toEqual([
        ['R1', 'A2', false],
        ['R2', 'B', false],
        ['R3', 'C', true],
      ]);
      expect(seen[1]).toEqual(seen[0]);
    });

    it('a bulk move answers the same with the join in written order and without (hint-join-order)', async () => {
      const api = await t.ctx.as([...ADMIN, 'accounting.record.review', 'accounting.record.read']);
      const seen = [];
      for (const off of ['', 'hint-join-order,hint-no-jit']) {
        turnOff(off);
        const records = await api.newRecords([{ review_status: 'REVIEW' }, { review_status: 'REVIEW' }, {}]);
        const res = await api.post(BULK, {
          review_status: 'READY_FOR_EXPORT',
          records: records.slice(0, 2).map((r) => ({ id: r.id })),
        });
        expect(res.status, res.text).toBe(200);
        seen.push(res.body.items.map((r: any) => [r.review_status, r.version]));
        const refused = await api.post(BULK, { review_status: 'EXPORTED', records: [{ id: records[2].id }] });
        expect(refused.status, refused.text).not.toBe(200);
      }
      expect(seen[1]).toEqual(seen[0]);
    });

    it('delivers a due webhook the same with the due-endpoints hints and without (hint-join-order, hint-no-jit)', async () => {
      const api = await t.ctx.as([...ADMIN, 'webhooks.write']);
      const receiver = await startReceiver(); // closed when the test finishes
      const hook = await api.create(WEBHOOKS, {
        url: receiver.url,
        event_types: ['accounting_record.ready_for_export'],
      });
      expect(hook.status, hook.text).toBe(200);
      const dispatcher = testDispatcher(t.ctx.db);
      const steps = [];
      for (const off of ['', 'hint-join-order,hint-no-jit']) {
        turnOff(off);
        await api.readyRecord();
        const step = await dispatcher.runOnce();
        steps.push([step.attempted, step.delivered]);
      }
      expect(steps).toEqual([
        [1, 1],
        [1, 1],
      ]);
      expect(receiver.received).toHaveLength(2);
    });
  },
  // The test's receiver is on 127.0.0.1 (plain http, a loopback address: an operator's setting, docs/webhooks.md).
  { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' },
);
