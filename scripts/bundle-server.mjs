// Writes the server (dist/server.bundle.cjs) and the `svc` command (dist/cli/main.bundle.cjs) as one CommonJS file
// each, the code and its pure-JavaScript dependencies, and beside each its entry (dist/server.js, dist/cli/main.js):
// a small ES module that runs the bundle through V8's code cache (src/speed/code-cache.ts).
// Loading kysely's and typebox's ~500 module files was most of the server's start-up (docs/performance.md:
// 1,590-1,880 ms unbundled, 690-1,050 ms bundled, in the same slow hour); compiling the 7 MB bundle was then the
// largest part left (a start 0.45 s of CPU, 0.33 s from the code cache). CommonJS because Node 20 caches code only
// for a script (vm.Script), not for an ES module; the sources' import.meta.url is the bundle's file URL.
// Kept outside the bundle: the native addons (SQLite, argon2), the clients loaded on demand (pg, ioredis), and the two
// documentation plugins, which read files that lie next to their own code (/docs assets, their package.json).
// The CLI is bundled for the same reason: every `svc …` command paid ~1 s of module loading before doing anything
// (most of `svc --help`'s 2 s in a CPU profile). It keeps loading the SDK's reference integration (client/dist) at run
// time, by a URL relative to dist/cli/, where the bundle is written.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { build, transform } from 'esbuild';

const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  logLevel: 'warning',
};

const bundle = {
  ...common,
  format: 'cjs',
  sourcemap: true,
  external: [
    'better-sqlite3',
    'argon2',
    'sharp',
    'pg',
    'pg-native',
    'ioredis',
    '@fastify/swagger',
    '@fastify/swagger-ui',
  ],
  // The sources are ES modules (strict); a CommonJS file is strict only when it says so.
  define: { 'import.meta.url': '__svcBundleUrl' },
  banner: { js: "'use strict';\nconst __svcBundleUrl = require('node:url').pathToFileURL(__filename).href;" },
};

/**
 * The bundle as one-byte text. esbuild escapes every non-ASCII character of the code (its default charset), but
 * keeps the comments it carries over (JSDoc) as written, and one "§" or "→" in a comment is enough for V8 to hold the
 * whole source as a two-byte string: 14 MB of the server's heap for its 7 MB bundle, for the life of the process
 * (the source stays for lazy compilation). Each such character becomes "?" ("??" for one outside the BMP), so every
 * line and column of the source map still holds. Proven to touch comments only: the code without its comments is
 * the same before and after.
 */
async function asciiOnly(file) {
  const text = fs.readFileSync(file, 'utf8');
  const ascii = text.replace(/[\u{80}-\u{10ffff}]/gu, (c) => '?'.repeat(c.length));
  if (ascii === text) return;
  const code = async (t) =>
    (await transform(t, { minifyWhitespace: true, legalComments: 'none', charset: 'utf8' })).code;
  if ((await code(ascii)) !== (await code(text))) {
    throw new Error(`${file}: a non-ASCII character outside a comment; the bundle cannot be made one-byte safely`);
  }
  fs.writeFileSync(file, ascii);
}

/** Bundles `source` into `dir/<name>.bundle.cjs` and writes `dir/<name>.js`, its entry, exporting `exported`. */
async function bundleWithEntry(source, dir, name, exported) {
  const outfile = `${dir}/${name}.bundle.cjs`;
  fs.rmSync(`${dir}/.code-cache`, { recursive: true, force: true }); // before the bundle changes
  await build({ ...bundle, entryPoints: [source], outfile });
  await asciiOnly(outfile);
  const hash = createHash('sha256').update(fs.readFileSync(outfile)).digest('hex').slice(0, 16);
  const loaded = `loadBundle(new URL('./${name}.bundle.cjs', import.meta.url), '${hash}').exports`;
  await build({
    ...common,
    format: 'esm',
    stdin: {
      contents: [
        `// Written by scripts/bundle-server.mjs: runs ${name}.bundle.cjs through V8's code cache.`,
        "import { loadBundle } from './src/speed/code-cache.ts';",
        exported.length ? `export const { ${exported.join(', ')} } = ${loaded};` : `${loaded};`,
      ].join('\n'),
      resolveDir: '.',
      sourcefile: `${name}.entry.ts`,
      loader: 'ts',
    },
    outfile: `${dir}/${name}.js`,
  });
  fs.rmSync(`${dir}/${name}.js.map`, { force: true }); // tsc's map of the source the entry replaced
}

await bundleWithEntry('src/server.ts', 'dist', 'server', []);
await bundleWithEntry('src/cli/main.ts', 'dist/cli', 'main', ['run']);
