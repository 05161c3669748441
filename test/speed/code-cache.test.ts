import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { node, ROOT, tempDir } from '../support/processes.js';
import { until } from '../support/wait.js';

/**
 * The piece `code-cache` (src/speed/code-cache.ts): a bundle run through V8's code cache. Each process here is a
 * real `node`, loading a small CommonJS bundle of the test's own through the built loader (dist/speed/code-cache.js).
 */
const LOADER = pathToFileURL(path.join(ROOT, 'dist/speed/code-cache.js')).href;

// Functions compiled only when called, as most of a real bundle's are; the process calls them, so the cache it
// writes holds them.
const BUNDLE = `'use strict';
const path = require('node:path');
function sum(values) { return values.reduce((a, b) => a + b, 0); }
exports.answer = sum([40, 2]);
exports.file = path.basename(__filename);
exports.strict = (function () { return this === undefined; })();
`;

interface Run {
  cache: string;
  exports: { answer: number; file: string; strict: boolean };
  cacheFile: string;
}

function fixture(): {
  dir: string;
  bundle: string;
  run: (hash?: string, env?: Record<string, string>, flags?: string[]) => Promise<Run>;
} {
  const dir = tempDir('svc-code-cache-');
  const bundle = path.join(dir, 'app.bundle.cjs');
  fs.writeFileSync(bundle, BUNDLE);
  const runner = path.join(dir, 'run.mjs');
  fs.writeFileSync(
    runner,
    `import fs from 'node:fs';
import { loadBundle } from ${JSON.stringify(LOADER)};
const loaded = loadBundle(new URL('./app.bundle.cjs', import.meta.url), process.argv[2]);
process.stdout.write(JSON.stringify(loaded));
// HOLD: the process says it has loaded, then ends only once the test says so (processes that end together).
if (process.env.HOLD) {
  fs.writeFileSync(new URL(\`./loaded-\${process.pid}\`, import.meta.url), '');
  const go = new URL('./go', import.meta.url);
  const wait = setInterval(() => fs.existsSync(go) && clearInterval(wait), 10);
}
`,
  );
  const run = async (hash = 'aaaa', env: Record<string, string> = {}, flags: string[] = []) => {
    const exited = await node([...flags, runner, hash], { SVC_SPEED_OFF: '', ...env });
    expect({ code: exited.code, stderr: exited.stderr }).toEqual({ code: 0, stderr: '' });
    return JSON.parse(exited.stdout) as Run;
  };
  return { dir, bundle, run };
}

const RAN = { answer: 42, file: 'app.bundle.cjs', strict: true };

describe('code-cache: a bundle run through V8’s code cache', () => {
  it('runs without a cache, writes one as it exits, and the next process uses it', async () => {
    const { dir, run } = fixture();
    const first = await run();
    expect(first).toMatchObject({ cache: 'none', exports: RAN });
    expect(path.dirname(first.cacheFile)).toBe(path.join(dir, '.code-cache'));
    expect(path.basename(first.cacheFile)).toMatch(
      new RegExp(
        `^app\\.bundle\\.cjs\\.aaaa\\.${process.version.replace(/\./g, '\\.')}-${process.arch}\\.[0-9a-f]{12}\\.bin$`,
      ),
    );
    expect(fs.statSync(first.cacheFile).size).toBeGreaterThan(0);
    expect(await run()).toMatchObject({ cache: 'used', exports: RAN, cacheFile: first.cacheFile });
    // No temporary file is left beside it.
    expect(fs.readdirSync(path.join(dir, '.code-cache'))).toEqual([path.basename(first.cacheFile)]);
  });

  it('replaces a cache V8 refuses, and runs the bundle all the same', async () => {
    const { run } = fixture();
    const { cacheFile } = await run();
    fs.writeFileSync(cacheFile, Buffer.from('not a code cache, of any length at all'));
    expect(await run()).toMatchObject({ cache: 'rejected', exports: RAN });
    expect(await run()).toMatchObject({ cache: 'used', exports: RAN });
  });

  it('never offers a cache to another build of the bundle, nor to a process with other flags', async () => {
    const { run } = fixture();
    const made = await run('aaaa');
    const rebuilt = await run('bbbb');
    expect(rebuilt).toMatchObject({ cache: 'none', exports: RAN });
    expect(rebuilt.cacheFile).not.toBe(made.cacheFile);
    const flagged = await run('aaaa', {}, ['--stack-size=900']);
    expect(flagged).toMatchObject({ cache: 'none', exports: RAN });
    expect(flagged.cacheFile).not.toBe(made.cacheFile);
    expect(await run('aaaa')).toMatchObject({ cache: 'used' });
  });

  it('leaves one whole cache when processes without one end together', async () => {
    const { dir, run } = fixture();
    const held = [1, 2, 3, 4].map(() => run('aaaa', { HOLD: '1' }));
    await until(
      'the four processes have loaded the bundle',
      () => fs.readdirSync(dir).filter((name) => name.startsWith('loaded-')).length === 4,
    );
    fs.writeFileSync(path.join(dir, 'go'), '');
    const runs = await Promise.all(held);
    expect(runs.map((r) => r.cache)).toEqual(['none', 'none', 'none', 'none']);
    expect(fs.readdirSync(path.join(dir, '.code-cache'))).toHaveLength(1);
    expect(await run()).toMatchObject({ cache: 'used', exports: RAN });
  });

  it('writes nothing and fails nothing where the folder cannot be written', async () => {
    const { dir, run } = fixture();
    // A file where the folder would be: mkdir fails even for root, who may write anywhere else.
    fs.writeFileSync(path.join(dir, '.code-cache'), 'in the way');
    expect(await run()).toMatchObject({ cache: 'none', exports: RAN });
    expect(await run()).toMatchObject({ cache: 'none', exports: RAN });
    expect(fs.readdirSync(dir).sort()).toEqual(['.code-cache', 'app.bundle.cjs', 'run.mjs']);
  });

  it('neither reads nor writes a cache with SVC_SPEED_OFF=code-cache (the A of its A/B)', async () => {
    const { dir, run } = fixture();
    expect(await run('aaaa', { SVC_SPEED_OFF: 'random-pool,code-cache' })).toMatchObject({
      cache: 'off',
      exports: RAN,
    });
    expect(fs.existsSync(path.join(dir, '.code-cache'))).toBe(false);
    await run();
    expect(await run('aaaa', { SVC_SPEED_OFF: 'code-cache' })).toMatchObject({ cache: 'off', exports: RAN });
  });
});
