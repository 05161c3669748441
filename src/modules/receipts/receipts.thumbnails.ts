import type { Readable } from 'node:stream';
import { loadSharp } from './sharp.js';

/** Thumbnails are at most this wide and high, in pixels. */
export const THUMBNAIL_PX = 320;

/** A JPEG thumbnail of an image, turned upright by its EXIF orientation; its metadata (location included) dropped. */
export async function thumbnailOf(image: Readable): Promise<Buffer> {
  const sharp = await loadSharp();
  const transform = sharp({ failOn: 'error', limitInputPixels: 100_000_000 })
    .rotate()
    .resize(THUMBNAIL_PX, THUMBNAIL_PX, { fit: 'inside', withoutEnlargement: true })
    .jpeg({ quality: 75 });
  return image.pipe(transform).toBuffer();
}
