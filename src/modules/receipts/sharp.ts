import { createRequire } from 'node:module';
import type Sharp from 'sharp';

let loading: Promise<typeof Sharp> | undefined;

/**
 * sharp (libvips), loaded at its first use: loading it took about 0.15 s of CPU at every start of the server and of
 * every `svc` command (a CPU profile of `svc clients list`), though only receipts' thumbnails and HEIC checks need it.
 * Required, as pg and ioredis are (it is CommonJS): the built server is a script, where import() has no loader
 * (src/speed/code-cache.ts).
 */
export const loadSharp = (): Promise<typeof Sharp> =>
  (loading ??= Promise.resolve().then((): typeof Sharp => createRequire(import.meta.url)('sharp')));
