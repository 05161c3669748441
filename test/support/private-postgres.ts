import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './cluster.js';

const run = promisify(execFile);

/**
 * A PostgreSQL server of the test's own (initdb in a temporary directory, its own port), which the test may stop
 * and start without disturbing anyone else's databases: the shared server of TEST_POSTGRES_URL keeps running.
 * Debian's binaries (the postgresql package that CI installs); as root, the server runs as the postgres user.
 */
export class PrivatePostgres {
  private constructor(
    readonly dir: string,
    readonly port: number,
    private readonly bin: string,
  ) {}

  static async create(): Promise<PrivatePostgres> {
    const versions = fs.readdirSync('/usr/lib/postgresql').sort();
    const bin = path.join('/usr/lib/postgresql', versions.at(-1)!, 'bin');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-private-pg-'));
    if (process.getuid?.() === 0) await run('chown', ['postgres', dir]);
    const server = new PrivatePostgres(dir, await freePort(), bin);
    await server.pg('initdb', ['-D', server.data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
    await server.start();
    return server;
  }

  private get data() {
    return path.join(this.dir, 'data');
  }

  /** Runs one of the server's programs, as postgres when the test runs as root (PostgreSQL refuses root). */
  private async pg(program: string, args: string[]): Promise<void> {
    const binary = path.join(this.bin, program);
    if (process.getuid?.() === 0) await run('runuser', ['-u', 'postgres', '--', binary, ...args], { timeout: 60_000 });
    else await run(binary, args, { timeout: 60_000 });
  }

  url(database: string): string {
    return `postgres://postgres@127.0.0.1:${this.port}/${database}`;
  }

  async start(): Promise<void> {
    const options = `-p ${this.port} -k ${this.dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`;
    await this.pg('pg_ctl', ['-D', this.data, '-o', options, '-l', path.join(this.dir, 'log'), '-w', 'start']);
  }

  /** A fast shutdown: sessions are ended (their transactions rolled back), as when an operator restarts it. */
  async stop(): Promise<void> {
    await this.pg('pg_ctl', ['-D', this.data, '-m', 'fast', '-w', 'stop']);
  }

  async destroy(): Promise<void> {
    await this.stop().catch(() => {});
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}
