import { expect, it } from 'vitest';
import { ADMIN, INGEST, item } from '../support/accounting.js';
import { describeEachDialect } from '../support/context.js';

/**
 * Issue 36, 10: validation problems in plain words. The words are what this file tests (elsewhere tests pin the
 * status, error_code and each problem's path: docs/design.md, "Errors"); ajv's own ("must NOT have fewer than 1
 * characters", "must be >= 1", "must be boolean or null") are never answered.
 */
const AJV_WORDS = /must NOT|must be [<>]=?|must be (string|integer|number|boolean|array|object)\b|must match format/;

describeEachDialect('validation problems in plain words', (t) => {
  it('lengths, sizes, bounds and types are said as a person would say them', async () => {
    const api = await t.ctx.as([...ADMIN, 'fields.read']);
    const problems = async (res: Promise<{ status: number; body: any }>) => {
      const { status, body } = await res;
      expect([status, body.error_code]).toEqual([400, 'INVALID_REQUEST']);
      for (const problem of body.details.errors) expect(problem.message).not.toMatch(AJV_WORDS);
      return body.details.errors.map((p: { path: string; message: string }) => [p.path, p.message]);
    };

    expect(await problems(api.create('/v1/fields', { name: '', group: 'USER', is_disabled: 'no' }))).toEqual([
      ['/name', 'must not be empty'],
      ['/is_disabled', 'must be true, false or null'],
    ]);
    expect(await problems(api.create('/v1/fields', { name: 'n'.repeat(256), group: 'USER' }))).toEqual([
      ['/name', 'must be at most 255 characters long'],
    ]);
    expect(await problems(api.create('/v1/fields', { name: 7, group: 'USER' }))).toEqual([
      ['/name', 'must be a string'],
    ]);
    expect(await problems(api.get('/v1/fields', { limit: '0' }))).toEqual([['/query/limit', 'must be at least 1']]);
    expect(await problems(api.get('/v1/fields', { limit: '1001' }))).toEqual([
      ['/query/limit', 'must be at most 1000'],
    ]);
    expect(await problems(api.get('/v1/fields', { limit: 'many' }))).toEqual([['/query/limit', 'must be an integer']]);

    const field = await api.newField();
    const values = `/v1/fields/${field}/values`;
    expect(await problems(api.create(values, { items: [] }))).toEqual([['/items', 'must have at least one item']]);
    const many = Array.from({ length: 1001 }, (_, i) => ({ value: `v${i}` }));
    expect(await problems(api.create(values, { items: many }))).toEqual([['/items', 'must have at most 1000 items']]);

    expect(await problems(api.post(INGEST, { items: [item({ amount: { amount: 0, currency: 'USD' } })] }))).toEqual([
      ['/items/0/amount/amount', 'must be greater than 0'],
    ]);
    expect(await problems(api.post(INGEST, { items: [item({ lines: [] })] }))).toEqual([
      ['/items/0/lines', 'must have at least one item'],
    ]);
  });
});
