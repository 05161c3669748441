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
