import { randomBytes } from 'node:crypto';
import { expect, it } from 'vitest';
import { encode, newId } from '../../src/lib/ids.js';

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

/** The plain definition: the 128-bit number in base 32, 26 digits. */
function reference(bytes: Uint8Array): string {
  let n = 0n;
  for (const byte of bytes) n = (n << 8n) | BigInt(byte);
  let out = '';
  for (let i = 0; i < 26; i++) {
    out = ALPHABET[Number(n & 31n)] + out;
    n >>= 5n;
  }
  return out;
}

it('encodes 128 bits as their 26-digit base 32 number', () => {
  const edge = [
    new Uint8Array(16),
    new Uint8Array(16).fill(255),
    Uint8Array.from({ length: 16 }, (_, i) => (i === 0 ? 128 : 0)),
  ];
  for (const bytes of [...edge, ...Array.from({ length: 5000 }, () => randomBytes(16))]) {
    expect(encode(bytes)).toBe(reference(bytes));
  }
  expect(encode(new Uint8Array(16).fill(255))).toBe('7zzzzzzzzzzzzzzzzzzzzzzzzz');
});

it('makes ids that sort in the order they were made', () => {
  const ids = Array.from({ length: 10_000 }, () => newId('efo'));
  expect([...ids].sort()).toEqual(ids);
  expect(new Set(ids).size).toBe(ids.length);
  expect(ids[0]).toMatch(/^efo_[0-9a-hjkmnp-tv-z]{26}$/);
});

it('hands out each pooled random byte once: 20,000 tokens are distinct, across many refills of the pool', async () => {
  const { randomToken, secureRandom } = await import('../../src/lib/ids.js');
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
