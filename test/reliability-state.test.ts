import { expect, it } from 'vitest';
import { describeEachDialect } from './support/context.js';
import { businessState } from './support/reliability-state.js';

/**
 * The "nothing changed" check of the reliability suite (the fuzzer reads it after every rejected input): it must see
 * every change of the accounts it is asked about, and nothing of other accounts.
 */
describeEachDialect('business state, as the reliability suite reads it', (t) => {
  it('is equal when nothing changed, differs in the table a write touched, and ignores other accounts', async () => {
    const api = await t.ctx.as(['fields.read', 'fields.write', 'field_values.read', 'field_values.write']);
    const stranger = await t.ctx.as(['fields.write']);
    const fieldId = await api.newField({ name: 'Department' });
    const [value] = await api.newValues(fieldId, [{ value: 'Sales', remote_id: 'r-1' }]);

    const before = await businessState(t.ctx.db, [api.accountId]);
    expect(before.fields).toHaveLength(1);
    expect(before.field_values).toHaveLength(1);
    expect(await businessState(t.ctx.db, [api.accountId])).toEqual(before);

    await stranger.newField({ name: 'Class' });
    expect(await businessState(t.ctx.db, [api.accountId])).toEqual(before);

    const res = await api.put(`/v1/fields/${fieldId}/values`, {
      items: [{ svc_id: value!.svc_id, data: { value: 'Ops' } }],
    });
    expect(res.status, res.text).toBe(200);
    const after = await businessState(t.ctx.db, [api.accountId]);
    expect(after).not.toEqual(before);
    expect(after.fields).toEqual(before.fields);
    expect(after.field_values).not.toEqual(before.field_values);
    expect(JSON.stringify(after.field_values)).toContain('Ops');
  });
});
