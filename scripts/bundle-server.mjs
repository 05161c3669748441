// Writes dist/server.js as one ES module: the service and its pure-JavaScript dependencies in one file.
// Loading kysely's and typebox's ~500 module files was most of the server's start-up (docs/performance.md:
// 1,590-1,880 ms unbundled, 690-1,050 ms bundled, in the same slow hour).
// Kept outside the bundle: the native addons (SQLite, argon2), the clients loaded on demand (pg, ioredis), and the two
// documentation plugins, which read files that lie next to their own code (/docs assets, their package.json).
// The CLI (bin/svc.js → dist/cli) stays as tsc writes it.
import { build } from 'esbuild';

await build({
  entryPoints: ['src/server.ts'],
  outfile: 'dist/server.js',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: true,
  external: ['better-sqlite3', 'argon2', 'pg', 'pg-native', 'ioredis', '@fastify/swagger', '@fastify/swagger-ui'],
  // CommonJS dependencies call require(); an ES module has none of its own.
  banner: {
    js: "import { createRequire as __svcCreateRequire } from 'node:module'; const require = __svcCreateRequire(import.meta.url);",
  },
  logLevel: 'warning',
});
