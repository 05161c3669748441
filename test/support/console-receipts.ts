import type { Locator } from 'playwright-core';
import { createTestContext, type TestContext } from './context.js';

/** The app under test listening in this process (its clock is the test's), serving the built console. */
export interface InProcessServer {
  ctx: TestContext;
  url: string;
  close(): Promise<void>;
}

/** An SQLite app listening on a free port of 127.0.0.1 with `env`'s settings. */
export async function startInProcess(env: Record<string, string> = {}): Promise<InProcessServer> {
  const ctx = await createTestContext('sqlite', env);
  try {
    const url = await ctx.app.listen({ host: '127.0.0.1', port: 0 });
    return { ctx, url, close: () => ctx.close() };
  } catch (error) {
    await ctx.close();
    throw error;
  }
}

/** Whether an image has loaded and has pixels (a broken image has none). */
export const drawn = (image: Locator) =>
  image.evaluate((img) => img instanceof HTMLImageElement && img.complete && img.naturalWidth > 0);

/** The image inside a receipt's thumbnail button, drawn; null when the tile has none (a PDF's). */
export const thumbnailDrawn = (tile: Locator) =>
  tile.evaluate((button) => {
    const img = button.querySelector('img');
    return img === null ? null : img.complete && img.naturalWidth > 0;
  });
