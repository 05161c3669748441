// Builds the project (`npm run build`) unless the last build was made from the same sources.
// The test suites' global setup calls it: `npm ci` has already built (its `prepare`), so a CI run builds once, and
// two suites started together (or two developers' runs in one tree) never write dist/ at the same time: a lock
// directory serialises them, and the second finds the build current.
// A failed build fails loudly (exit 1) and leaves no stamp: the next run builds again.
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** What the build reads: a change to any of these makes the build stale. */
const INPUTS = [
  'src',
  'client/src',
  'client/package.json',
  'client/tsconfig.json',
  'client/tsconfig.node.json',
  'console/src',
  'console/index.html',
  'console/vite.config.ts',
  'console/tsconfig.json',
  'scripts/bundle-server.mjs',
  'tsconfig.json',
  'tsconfig.build.json',
  'package.json',
  'package-lock.json',
];
/** What the build writes: all must exist for a stamp to count. */
const OUTPUTS = [
  'dist/server.js',
  'dist/server.bundle.cjs',
  'dist/cli/main.js',
  'dist/cli/main.bundle.cjs',
  'client/dist/index.js',
  'console/dist/index.html',
];
const STAMP = path.join(root, 'dist', '.build-hash');
const LOCK = path.join(root, '.build-lock');

function files(relative) {
  const full = path.join(root, relative);
  if (!fs.existsSync(full)) return [];
  if (!fs.statSync(full).isDirectory()) return [relative];
  return (
    fs
      .readdirSync(full, { withFileTypes: true })
      // Compiled JavaScript beside client/src's sources is build output (gitignored), not input.
      .filter((entry) => !(entry.isFile() && /\.js(\.map)?$/.test(entry.name) && relative.startsWith('client/src')))
      .flatMap((entry) => files(path.join(relative, entry.name)))
  );
}

export function sourceHash() {
  const hash = createHash('sha256');
  for (const file of INPUTS.flatMap(files).sort()) {
    hash
      .update(file)
      .update('\0')
      .update(fs.readFileSync(path.join(root, file)))
      .update('\0');
  }
  return hash.digest('hex');
}

function current(hash) {
  return (
    OUTPUTS.every((file) => fs.existsSync(path.join(root, file))) &&
    fs.existsSync(STAMP) &&
    fs.readFileSync(STAMP, 'utf8').trim() === hash
  );
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function lock() {
  for (;;) {
    try {
      fs.mkdirSync(LOCK);
      fs.writeFileSync(path.join(LOCK, 'pid'), String(process.pid));
      return;
    } catch (error) {
      if (error.code !== 'EEXIST') throw error;
      // A lock left by a process that died is taken over.
      const owner = Number(fs.readFileSync(path.join(LOCK, 'pid'), { encoding: 'utf8', flag: 'a+' }) || 0);
      let alive = false;
      try {
        if (owner > 0) alive = process.kill(owner, 0);
      } catch {
        alive = false;
      }
      // No pid yet: its owner is between mkdir and write, or died there (then the lock is old).
      const stale = owner > 0 ? !alive : Date.now() - fs.statSync(LOCK).mtimeMs > 60_000;
      if (stale) fs.rmSync(LOCK, { recursive: true, force: true });
      else await sleep(250);
    }
  }
}

export async function buildIfChanged({ log = (line) => process.stderr.write(`${line}\n`) } = {}) {
  if (current(sourceHash())) return 'current';
  await lock();
  try {
    // Another run may have built while this one waited for the lock.
    const hash = sourceHash();
    if (current(hash)) return 'current';
    log('build: sources changed since the last build; running npm run build');
    fs.rmSync(STAMP, { force: true });
    execFileSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' });
    fs.writeFileSync(STAMP, `${hash}\n`);
    return 'built';
  } finally {
    fs.rmSync(LOCK, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    const outcome = await buildIfChanged();
    process.stderr.write(`build: ${outcome}\n`);
  } catch (error) {
    process.stderr.write(`build failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  }
}
