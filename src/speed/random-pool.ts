import { randomBytes } from 'node:crypto';
import { isOn, onSwitches } from './switches.js';

/**
 * Random bytes from the CSPRNG, drawn 4 kB at a time: one call into OpenSSL for many ids and tokens instead of
 * one each, as Node's own randomUUID does. Invariant: each byte is handed out once (zeroed in the pool as it is),
 * in memory of its own, as randomBytes gives (test/speed/random-pool.test.ts).
 */
const POOL_BYTES = 4096;
let pool = Buffer.alloc(0);
let poolAt = 0;

function pooled(bytes: number): Buffer {
  if (bytes > POOL_BYTES / 4) return randomBytes(bytes);
  if (poolAt + bytes > pool.length) {
    pool = randomBytes(POOL_BYTES);
    poolAt = 0;
  }
  // Its own memory (not Node's shared slab of small buffers), as randomBytes gives.
  const out = Buffer.allocUnsafeSlow(bytes);
  pool.copy(out, 0, poolAt, poolAt + bytes);
  pool.fill(0, poolAt, poolAt + bytes);
  poolAt += bytes;
  return out;
}

let draw: (bytes: number) => Buffer = pooled;
onSwitches(() => {
  draw = isOn('random-pool') ? pooled : (bytes) => randomBytes(bytes);
});

/** `bytes` random bytes from the CSPRNG. */
export function secureRandom(bytes: number): Buffer {
  return draw(bytes);
}
