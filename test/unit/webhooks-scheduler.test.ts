import { describe, expect, it } from 'vitest';
import { InFlight, planClaims, type Bounds } from '../../src/modules/webhooks/webhooks.scheduler.js';

const BOUNDS: Bounds = { total: 32, perAccount: 8, perEndpoint: 4 };
const due = (account_id: string, endpoint_id: string, count: number) => ({ account_id, endpoint_id, due: count });
const busy = (...refs: [string, string, number][]) => {
  const inFlight = new InFlight();
  for (const [account_id, endpoint_id, n] of refs)
    for (let i = 0; i < n; i++) inFlight.add({ account_id, endpoint_id });
  return inFlight;
};
const accounts = (plan: { places: { account_id: string }[] }) => plan.places.map((p) => p.account_id).join('');

describe('webhooks: the places a dispatcher hands out', () => {
  it('one at a time to the account with the fewest attempts under way, equals in turns after the last served', () => {
    const waiting = [due('a', 'a1', 4), due('a', 'a2', 4), due('b', 'b1', 4), due('c', 'c1', 4)];
    expect(accounts(planClaims(waiting, new InFlight(), { ...BOUNDS, total: 6 }, null))).toBe('abcabc');
    expect(accounts(planClaims(waiting, new InFlight(), { ...BOUNDS, total: 6 }, 'a'))).toBe('bcabca');
    expect(accounts(planClaims(waiting, new InFlight(), { ...BOUNDS, total: 6 }, 'c'))).toBe('abcabc');
    // c holds seven, b one, a none; four places free: a first, then a and b in turns (b first after a); not c.
    const plan = planClaims(waiting, busy(['b', 'b1', 1], ['c', 'c1', 7]), { ...BOUNDS, total: 12 }, 'a');
    expect(accounts(plan)).toBe('abab');
    expect(plan.last).toBe('b');
  });

  it('keeps each account within its bound and each endpoint within its own, counting what is under way', () => {
    const waiting = [due('a', 'a1', 4), due('a', 'a2', 4), due('a', 'a3', 4), due('b', 'b1', 4)];
    const plan = planClaims(waiting, busy(['a', 'a1', 3]), BOUNDS, null);
    const count = (id: string) => plan.places.filter((p) => p.endpoint_id === id).length;
    expect([count('a1'), count('a2'), count('a3'), count('b1')]).toEqual([0, 3, 2, 4]);
    // Within an account, to the endpoint with the fewest under way: a2 and a3 alternate, a1 (three) waits.
    expect(plan.places.filter((p) => p.account_id === 'a').map((p) => p.endpoint_id)).toEqual([
      'a2',
      'a3',
      'a2',
      'a3',
      'a2',
    ]);
  });

  it('hands out no more than the free places, nor more than is due', () => {
    const waiting = [due('a', 'a1', 2), due('b', 'b1', 1)];
    expect(planClaims(waiting, busy(['c', 'c1', 31]), BOUNDS, null).places).toHaveLength(1);
    expect(planClaims(waiting, busy(['c', 'c1', 32]), BOUNDS, null)).toEqual({ places: [], last: null });
    expect(planClaims(waiting, new InFlight(), BOUNDS, null).places).toHaveLength(3);
  });
});
