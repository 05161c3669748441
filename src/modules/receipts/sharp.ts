import type Sharp from 'sharp';

let loading: Promise<typeof Sharp> | undefined;

/**
 * sharp (libvips), loaded at its first use: loading it took about 0.15 s of CPU at every start of the server and of
 * every `svc` command (a CPU profile of `svc clients list`), though only receipts' thumbnails and HEIC checks need it.
 */
export const loadSharp = (): Promise<typeof Sharp> => (loading ??= import('sharp').then((m) => m.default));
