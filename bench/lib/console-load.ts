import { gzipSync } from 'node:zlib';

/**
 * The JavaScript a browser fetches to show the console's first page: the scripts and module preloads of
 * /console/'s HTML, fetched from the running server, as gzip would send them (level 9). Dynamic imports that a
 * screen loads later are not counted.
 */
export async function consoleFirstLoadKb(baseUrl: string): Promise<{ kb: number; files: number }> {
  const page = await fetch(`${baseUrl}/console/`);
  if (!page.ok) throw new Error(`GET /console/ answered ${page.status}`);
  const html = await page.text();
  const urls = new Set<string>();
  for (const match of html.matchAll(/<script[^>]*\bsrc="([^"]+\.js)"/g)) urls.add(match[1]!);
  for (const match of html.matchAll(/<link[^>]*rel="modulepreload"[^>]*href="([^"]+\.js)"/g)) urls.add(match[1]!);
  if (urls.size === 0) throw new Error('the console page loads no script');
  let bytes = 0;
  for (const url of urls) {
    const res = await fetch(new URL(url, baseUrl));
    if (!res.ok) throw new Error(`GET ${url} answered ${res.status}`);
    bytes += gzipSync(Buffer.from(await res.arrayBuffer()), { level: 9 }).length;
  }
  return { kb: bytes / 1000, files: urls.size };
}
