// Writes dist/server.js and dist/cli/main.js (the `svc` command) as one ES module each: the code and its
// pure-JavaScript dependencies in one file.
// Loading kysely's and typebox's ~500 module files was most of the server's start-up (docs/performance.md:
// 1,590-1,880 ms unbundled, 690-1,050 ms bundled, in the same slow hour).
// Kept outside the bundle: the native addons (SQLite, argon2), the clients loaded on demand (pg, ioredis), and the two
// documentation plugins, which read files that lie next to their own code (/docs assets, their package.json).
// The CLI is bundled for the same reason: every `svc …` command paid ~1 s of module loading before doing anything
// (most of `svc --help`'s 2 s in a CPU profile). It keeps loading the SDK's reference integration (client/dist) at run
// time, by a URL relative to dist/cli/main.js, where the bundle is written.
import { build } from 'esbuild';

const common = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
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
  // CommonJS dependencies call require(); an ES module has none of its own.
  banner: {
    js: "import { createRequire as __svcCreateRequire } from 'node:module'; const require = __svcCreateRequire(import.meta.url);",
  },
  logLevel: 'warning',
};

await build({ ...common, entryPoints: ['src/server.ts'], outfile: 'dist/server.js' });
await build({ ...common, entryPoints: ['src/cli/main.ts'], outfile: 'dist/cli/main.js' });
