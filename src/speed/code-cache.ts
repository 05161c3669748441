import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import Module, { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';
import { handOverEsmImport } from '../lib/esm-import.js';

/**
 * The piece `code-cache`: the server's and the CLI's bundles (dist/server.bundle.cjs, dist/cli/main.bundle.cjs) run
 * through V8's code cache, so that a process starts from the bytecode an earlier one compiled rather than parsing
 * and compiling 7 MB of JavaScript again (a server's start: 0.45 s of CPU without, 0.33 s with; docs/performance.md).
 * Node 22's `module.enableCompileCache()` does this for every module; Node 20 has nothing of the kind.
 *
 * Invariants (test/speed/code-cache.test.ts):
 * - A cache is only ever offered to the bundle it was made from, by the same Node and V8 flags: its file is named by
 *   the bundle's content hash (taken by the build, which writes the bundle and its entry together), Node's version,
 *   the architecture and a hash of the process's flags (`execArgv`, `NODE_OPTIONS`). V8 checks the flags and the
 *   source's length again and refuses a cache that does not fit; the bundle then compiles as if there were none.
 * - A cache that cannot be read, or that V8 refuses, costs only its own use: the bundle runs all the same.
 * - A process that ran without a usable cache writes one as it exits (then it holds every function that process
 *   compiled), unless another process has written one meanwhile; written to a temporary file and renamed, so a reader
 *   never sees half of one. Where the folder cannot be written (a read-only install), nothing is written and nothing
 *   fails.
 * - `SVC_SPEED_OFF=code-cache` (src/speed/switches.ts) runs the bundle without reading or writing a cache: the A.
 */

/** What the cache did for this process: read and used, refused by V8, absent, or turned off. */
export type CacheUse = 'used' | 'rejected' | 'none' | 'off';

export interface LoadedBundle {
  exports: unknown;
  cache: CacheUse;
  /** The file the cache of this bundle is, or would be, kept in. */
  cacheFile: string;
}

/** The folder beside a bundle where its caches are kept; the build empties it. */
export const CACHE_DIR = '.code-cache';

function cacheFileOf(bundle: string, bundleHash: string): string {
  const flags = createHash('sha256')
    .update(JSON.stringify([process.execArgv, process.env.NODE_OPTIONS ?? '']))
    .digest('hex')
    .slice(0, 12);
  const name = `${path.basename(bundle)}.${bundleHash}.${process.version}-${process.arch}.${flags}.bin`;
  return path.join(path.dirname(bundle), CACHE_DIR, name);
}

const turnedOff = (): boolean =>
  (process.env.SVC_SPEED_OFF ?? '')
    .split(',')
    .map((name) => name.trim())
    .includes('code-cache');

function readCache(file: string): Buffer | undefined {
  try {
    return fs.readFileSync(file);
  } catch {
    return undefined;
  }
}

/**
 * Writes the cache as the process exits, in place of one V8 refused (`replace`), else only if no other process has
 * written one meanwhile; a folder that cannot be written leaves the bundle uncached.
 */
function writeCacheAtExit(script: vm.Script, file: string, replace: boolean): void {
  process.once('exit', () => {
    if (!replace && fs.existsSync(file)) return;
    // A name no other writer has (processes of other hosts sharing the folder may share a pid), opened before the
    // cache is made: a folder that cannot be written costs no serialising.
    const temporary = `${file}.${randomUUID()}.tmp`;
    try {
      fs.mkdirSync(path.dirname(file), { recursive: true });
      const fd = fs.openSync(temporary, 'wx');
      try {
        fs.writeFileSync(fd, script.createCachedData());
      } finally {
        fs.closeSync(fd);
      }
      fs.renameSync(temporary, file);
    } catch {
      try {
        fs.rmSync(temporary, { force: true });
      } catch {
        // nothing was written where nothing can be
      }
    }
  });
}

/**
 * Runs the CommonJS bundle at `url` as Node would require it (its own `require`, `module`, `__filename`), through the
 * code cache kept for `bundleHash`, and answers its exports.
 */
export function loadBundle(url: URL, bundleHash: string): LoadedBundle {
  const file = fileURLToPath(url);
  const cacheFile = cacheFileOf(file, bundleHash);
  const off = turnedOff();
  const cachedData = off ? undefined : readCache(cacheFile);
  const script = new vm.Script(Module.wrap(fs.readFileSync(file, 'utf8')), {
    filename: file,
    cachedData,
  });
  const cache: CacheUse = off ? 'off' : !cachedData ? 'none' : script.cachedDataRejected ? 'rejected' : 'used';
  if (cache === 'none' || cache === 'rejected') writeCacheAtExit(script, cacheFile, cache === 'rejected');
  // A script has no loader for import() (vm's own is experimental on Node 20, and lost with a cached script): the
  // bundle's import() of an ES module outside it goes through this module's (src/lib/esm-import.ts).
  handOverEsmImport((specifier) => import(specifier));
  const module = { exports: {}, id: file, filename: file, loaded: false };
  const wrapper: (...args: unknown[]) => void = script.runInThisContext();
  wrapper.call(module.exports, module.exports, createRequire(file), module, file, path.dirname(file));
  module.loaded = true;
  return { exports: module.exports, cache, cacheFile };
}
