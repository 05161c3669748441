import { expect, it } from 'vitest';
import { describeEachDialect } from '../support/context.js';
import { errorBody } from '../support/expect.js';
import { valuesUrl } from '../support/field-values.js';

const NUL = 'must not contain the character U+0000';
const SURROGATE = 'must be well-formed Unicode (it holds a lone surrogate)';

/**
 * U+0000 and lone surrogates anywhere in a request (src/http/text-guard.ts): each place named by its JSON pointer
 * (`~` and `/` in a key escaped as `~0` and `~1`), in the order the guard meets them, and nothing stored.
 */
describeEachDialect('text that neither dialect stores alike', (t) => {
  it('names every place of U+0000 or a lone surrogate in the query, the keys and the values, and stores nothing', async () => {
    const api = await t.ctx.as(['fields.write', 'field_values.write']);
    const fieldId = await api.newField();
    const body =
      '{"items":[{"value":"a\\u0000b","remote_id":"r\\ud800"},{"value":"ok","value_id":"v"}],' +
      '"we\\u0000ird/~key":{"in\\u0000ner":["x","y\\u0000"]}}';
    const res = await t.ctx.app.inject({
      method: 'POST',
      url: `${valuesUrl(fieldId)}?x=a%00b`,
      payload: body,
      headers: {
        authorization: `Bearer ${api.token}`,
        'content-type': 'application/json',
        'idempotency-key': 'text-guard-1',
      },
    });
    const problems = [
      { path: '/query/x', message: NUL },
      { path: '/we\u0000ird~1~0key', message: NUL },
      { path: '/we\u0000ird~1~0key/in\u0000ner', message: NUL },
      { path: '/we\u0000ird~1~0key/in\u0000ner/1', message: NUL },
      { path: '/items/0/remote_id', message: SURROGATE },
      { path: '/items/0/value', message: NUL },
    ];
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual(
      errorBody('INVALID_REQUEST', {
        message: `The request is invalid: ${problems.map((p) => `${p.path} ${p.message}`).join('; ')}`,
        details: { errors: problems },
      }),
    );
    const stored = await t.ctx.db.direct
      .selectFrom('field_values')
      .select('svc_id')
      .where('field_id', '=', fieldId)
      .execute();
    expect(stored).toEqual([]);
  });
});
