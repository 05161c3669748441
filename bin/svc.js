#!/usr/bin/env node
// The `svc` command: runs the compiled CLI (`npm ci` and `npm run build` make dist/).
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

const main = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));
if (!existsSync(main)) {
  process.stderr.write('svc: not built yet: run `npm run build` (npm ci does it for you)\n');
  process.exit(1);
}
const cli = await import(pathToFileURL(main).href);
process.exitCode = await cli.run(process.argv.slice(2));
