import { describe, expect, it } from 'vitest';
import { routeOf, withoutAdded } from '../support/upgrades.js';

/** How test/upgrades.test.ts holds today's answers to a release's: only listed additions may differ. */
describe('upgrade answers compared', () => {
  const old = { id: 'accr_1', amount: 1.5, items: [{ a: 1 }, { a: 2 }], user: null };

  it('takes away the members the old answer lacked, at any depth, and says where they were', () => {
    const added = new Set<string>();
    const now = {
      id: 'accr_1',
      amount: 1.5,
      items: [
        { a: 1, b: true },
        { a: 2, b: false },
      ],
      user: null,
      c: 3,
    };
    expect(withoutAdded(now, old, '$', added)).toEqual(old);
    expect([...added].sort()).toEqual(['$.c', '$.items[].b']);
  });

  it('keeps every difference of an old member: a changed value, a changed type, a member gone, an item more', () => {
    for (const now of [
      { ...old, amount: 1.49 },
      { ...old, amount: '1.5' },
      { id: 'accr_1', amount: 1.5, items: [{ a: 1 }, { a: 2 }] },
      { ...old, user: {} },
      { ...old, items: [{ a: 1 }, { a: 2 }, { a: 3 }] },
      { ...old, items: [{ a: 1 }, {}] },
    ]) {
      const added = new Set<string>();
      expect(withoutAdded(now, old, '$', added)).not.toEqual(old);
      expect(added.size).toBe(0);
    }
  });

  it('names a route by its ids taken out', () => {
    expect(routeOf('/v3/accounting/records/accr_01m8czy5wcwz9enx0dr1pdsnha')).toBe('/v3/accounting/records/{accr}');
    expect(routeOf('/v1/fields/extended_field_01ab/values')).toBe('/v1/fields/{extended_field}/values');
  });
});
