import { expect, it } from 'vitest';

/** The pool of random bytes (src/speed/random-pool.ts): each byte handed out once, and uniform. */
it('hands out each pooled random byte once: 20,000 tokens are distinct, across many refills of the pool', async () => {
  const { randomToken } = await import('../../src/lib/ids.js');
  const { secureRandom } = await import('../../src/speed/random-pool.js');
  const tokens = Array.from({ length: 20_000 }, () => randomToken(32));
  expect(new Set(tokens).size).toBe(20_000);
  for (const token of tokens.slice(0, 100)) expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
  // Consecutive draws never share bytes (a pool handed out twice would repeat them), and the bytes look uniform.
  const draws = Array.from({ length: 4096 }, () => secureRandom(10).toString('hex'));
  expect(new Set(draws).size).toBe(4096);
  const counts = new Array<number>(256).fill(0);
  for (const hex of draws) for (const byte of Buffer.from(hex, 'hex')) counts[byte]!++;
  // 40,960 bytes over 256 values: 160 each on average; a broken pool (zeros, repeats) lands far outside this.
  expect(Math.min(...counts)).toBeGreaterThan(90);
  expect(Math.max(...counts)).toBeLessThan(240);
  expect(secureRandom(2000)).toHaveLength(2000); // larger than the pool hands out: straight from the CSPRNG
});
