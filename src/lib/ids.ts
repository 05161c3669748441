import { secureRandom } from '../speed/random-pool.js';

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz'; // Crockford base32, lower case

let lastTime = 0;
let lastRandom: Uint8Array = new Uint8Array(10);

/** 128 bits → 26 base32 characters, most significant first (the first character carries 3 bits). */
export function encode(bytes: Uint8Array): string {
  // Two leading zero bits make 130 = 26 × 5. Bits are taken five at a time from a small accumulator, not with
  // BigInt arithmetic, which costs far more per id (docs/performance.md).
  let out = '';
  let acc = 0;
  let bits = 2;
  for (const byte of bytes) {
    acc = (acc << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out += ALPHABET[(acc >>> bits) & 31];
    }
    acc &= (1 << bits) - 1;
  }
  return out;
}

function increment(bytes: Uint8Array): Uint8Array {
  const next = Uint8Array.from(bytes);
  for (let i = next.length - 1; i >= 0; i--) {
    if (next[i]! < 255) {
      next[i]! += 1;
      return next;
    }
    next[i] = 0;
  }
  return secureRandom(10); // 80-bit overflow within one millisecond: practically impossible
}

/**
 * A prefixed identifier that is unguessable (80 random bits) and sorts by creation time (48-bit
 * millisecond timestamp first, as in ULID). Within one process and millisecond the random part is
 * incremented, so identifiers made in sequence sort in that sequence.
 */
export function newId(prefix: string): string {
  const now = Date.now();
  let random: Uint8Array;
  if (now <= lastTime) {
    random = increment(lastRandom);
  } else {
    lastTime = now;
    random = secureRandom(10);
  }
  lastRandom = random;
  const bytes = new Uint8Array(16);
  const time = Math.max(now, lastTime);
  // 48-bit big-endian timestamp
  bytes[0] = Math.floor(time / 2 ** 40) & 0xff;
  bytes[1] = Math.floor(time / 2 ** 32) & 0xff;
  bytes[2] = (time >>> 24) & 0xff;
  bytes[3] = (time >>> 16) & 0xff;
  bytes[4] = (time >>> 8) & 0xff;
  bytes[5] = time & 0xff;
  bytes.set(random, 6);
  return `${prefix}_${encode(bytes)}`;
}

/** A random secret of `bytes` bytes, base64url. */
export function randomToken(bytes = 32): string {
  return secureRandom(bytes).toString('base64url');
}
