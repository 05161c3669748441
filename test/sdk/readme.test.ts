import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, expect, it } from 'vitest';
import { describeLive } from './live-server.js';

const README = new URL('../../client/README.md', import.meta.url);
const CLIENT_ENTRY = new URL('../../client/src/index.ts', import.meta.url).pathname;
const WORK_DIR = path.join(
  path.dirname(new URL(import.meta.url).pathname),
  `.readme-${randomBytes(4).toString('hex')}`,
);

/** The ```ts blocks of the client's README, with the package import pointed at the source. */
function examples(): string[] {
  const text = fs.readFileSync(README, 'utf8');
  return [...text.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!.replaceAll("'@svc/client'", `'${CLIENT_ENTRY}'`));
}

afterAll(() => fs.rmSync(WORK_DIR, { recursive: true, force: true }));

describeLive('client README examples', (s) => {
  it('has examples, and each runs against a live server without throwing', async () => {
    const blocks = examples();
    expect(blocks.length).toBeGreaterThanOrEqual(3);
    const { clientId, clientSecret } = await s.live.credentials([
      'fields.read',
      'fields.write',
      'field_values.write',
      'accounting.record.write',
    ]);
    Object.assign(process.env, { SVC_URL: s.live.url, SVC_CLIENT_ID: clientId, SVC_CLIENT_SECRET: clientSecret });
    fs.mkdirSync(WORK_DIR, { recursive: true });
    for (const [i, code] of blocks.entries()) {
      const file = path.join(WORK_DIR, `example-${s.dialect}-${i}.ts`);
      fs.writeFileSync(file, `${code}\nexport {};\n`);
      await import(/* @vite-ignore */ file);
    }
  });
});
