import { afterEach, describe, expect, it } from 'vitest';
import { MAX, MAX_SHARED, suggestionValues } from '../../src/speed/suggestion-values.js';
import { turnOff } from '../../src/speed/switches.js';
import { reviewUrl } from '../support/accounting.js';
import { ruleChart } from '../support/coding-rules.js';
import { describeEachDialect } from '../support/context.js';
import { codingUrl } from '../support/review.js';
import { day, history, suggestionsOf } from '../support/suggestions.js';

/**
 * Piece `suggestion-values` (src/speed/suggestion-values.ts): the coded values of approved record versions kept
 * between suggestion requests. Suggestions answer the same with it and without it, and a record coded anew (a new
 * version) is never answered from what was kept of its old version.
 */
describe('suggestion values kept between requests', () => {
  afterEach(() => {
    turnOff(undefined);
    suggestionValues.clear();
  });

  it('keeps at most MAX record versions, dropping the least recently used first', () => {
    const v = [{ field_id: 'f', svc_id: 'v' }];
    for (let i = 0; i < MAX; i++) suggestionValues.set('acc', `r${i}`, 1, v);
    expect(suggestionValues.get('acc', 'r0', 1)).toEqual(v); // r0 is now the most recently used
    suggestionValues.set('acc', 'new', 1, v);
    expect(suggestionValues.size()).toBe(MAX);
    expect(suggestionValues.get('acc', 'r1', 1)).toBeUndefined();
    expect(suggestionValues.get('acc', 'r0', 1)).toEqual(v);
    expect(suggestionValues.get('acc', 'r0', 2)).toBeUndefined();
    expect(suggestionValues.get('other', 'r0', 1)).toBeUndefined();
  });

  it('keeps each (field, value) pair once, shared by every record that carries it, read from JSON or not', () => {
    // As suggestions read them: each record's values parsed from its own line items (new strings, new objects).
    const read = () => JSON.parse('[{"field_id":"gl","svc_id":"v1"},{"field_id":"dept","svc_id":"d1"}]');
    suggestionValues.set('acc', 'r1', 1, read());
    suggestionValues.set('acc', 'r2', 1, read());
    suggestionValues.set('acc', 'r3', 1, [{ field_id: 'gl', svc_id: 'v2' }]);
    const a = suggestionValues.get('acc', 'r1', 1)!;
    const b = suggestionValues.get('acc', 'r2', 1)!;
    expect(a).toEqual([
      { field_id: 'gl', svc_id: 'v1' },
      { field_id: 'dept', svc_id: 'd1' },
    ]);
    expect([a[0] === b[0], a[1] === b[1]]).toEqual([true, true]);
    expect(suggestionValues.get('acc', 'r3', 1)).toEqual([{ field_id: 'gl', svc_id: 'v2' }]);
    expect(Object.isFrozen(a[0])).toBe(true);
  });

  it('empties the shared pairs at MAX_SHARED: what is kept still answers its values, newcomers share anew', () => {
    suggestionValues.set('acc', 'first', 1, [{ field_id: 'gl', svc_id: 'v1' }]);
    const before = suggestionValues.get('acc', 'first', 1)![0];
    for (let i = 1; i < MAX_SHARED; i++)
      suggestionValues.set('acc', `r${i % 100}`, 1, [{ field_id: 'f', svc_id: `v${i}` }]);
    // The pair of `first` was shared until now; the next new pair empties the map.
    suggestionValues.set('acc', 'next', 1, [{ field_id: 'f', svc_id: 'new' }]);
    suggestionValues.set('acc', 'again', 1, [{ field_id: 'gl', svc_id: 'v1' }]);
    expect(suggestionValues.get('acc', 'first', 1)).toEqual([{ field_id: 'gl', svc_id: 'v1' }]);
    const [again] = suggestionValues.get('acc', 'again', 1)!;
    expect([again === before, again]).toEqual([false, { field_id: 'gl', svc_id: 'v1' }]);
    suggestionValues.set('acc', 'third', 1, [{ field_id: 'gl', svc_id: 'v1' }]);
    expect(suggestionValues.get('acc', 'third', 1)![0]).toBe(again);
  });

  it('keeps nothing while the piece is off', () => {
    turnOff('suggestion-values');
    suggestionValues.set('acc', 'r', 1, [{ field_id: 'f', svc_id: 'v' }]);
    expect(suggestionValues.get('acc', 'r', 1)).toBeUndefined();
    expect(suggestionValues.size()).toBe(0);
  });
});

describeEachDialect('suggestion values kept between requests', (t) => {
  afterEach(() => turnOff(undefined));

  it('answers the same with the piece on and off, and a history record coded anew is read at its new version', async () => {
    const { api, gl, set } = await ruleChart(t.ctx);
    const past = await history(api, [
      { vendor: 'Figma', codes: [set(gl, 0)] },
      { vendor: 'Figma', codes: [set(gl, 0)] },
    ]);
    const target = await api.newRecord({
      posted_at: day(10),
      vendor: { id: 'v_Figma', name: 'Figma' },
      lines: [{ amount: { amount: 171.75, currency: 'USD' }, field_values: [] }],
    });
    const glOf = (body: any) => body.suggestions.map((s: any) => [s.field_id, s.svc_id, s.confidence]);

    const on = await suggestionsOf(api, target.id); // reads both history records and keeps their values
    expect(glOf(on)).toEqual([[gl.field.svc_id, gl.values[0].svc_id, 1]]);
    expect(await suggestionsOf(api, target.id)).toEqual(on); // answered from what was kept
    turnOff('suggestion-values');
    expect(await suggestionsOf(api, target.id)).toEqual(on);
    turnOff(undefined);

    // Both history records go back to review, are coded to Software and approved again: new versions.
    for (const record of past) {
      const economic = record.line_items.find((l: any) => l.accounting_field_values.length > 0);
      const back = await api.post(reviewUrl(record.id), { review_status: 'REVIEW', version: record.version });
      expect(back.status, back.text).toBe(200);
      const coded = await api.post(codingUrl(record.id), {
        version: record.version + 1,
        lines: [{ line_id: economic.id, field_values: [set(gl, 2)] }],
      });
      expect(coded.status, coded.text).toBe(200);
      const approved = await api.post(reviewUrl(record.id), {
        review_status: 'READY_FOR_EXPORT',
        version: record.version + 2,
      });
      expect(approved.status, approved.text).toBe(200);
    }
    const recoded = await suggestionsOf(api, target.id);
    expect(glOf(recoded)).toEqual([[gl.field.svc_id, gl.values[2].svc_id, 1]]);
    turnOff('suggestion-values');
    expect(await suggestionsOf(api, target.id)).toEqual(recoded);
  });
});
