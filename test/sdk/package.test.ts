import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';
import { ROOT, tempDir } from '../support/processes.js';
import { describeLive } from './live-server.js';

const run = promisify(execFile);
const TSC = path.join(ROOT, 'node_modules/typescript-native/bin/tsc');

/** Runs a command to its end, answering its exit code and output whether it succeeded or not. */
async function attempt(file: string, args: string[], options: { cwd: string; env?: NodeJS.ProcessEnv }) {
  try {
    const { stdout, stderr } = await run(file, args, { ...options, env: { ...process.env, ...options.env } });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? 1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

describeLive('SDK: the package as a user installs it', (s) => {
  it('packs, installs into a new project, type-checks a script (and refuses a wrong call), and runs it', async () => {
    const dir = tempDir('svc-sdk-user-');
    const pack = await attempt('npm', ['pack', '--pack-destination', dir, '--silent'], {
      cwd: path.join(ROOT, 'client'),
    });
    expect(pack.code, pack.stderr).toBe(0);
    const tarball = path.join(dir, pack.stdout.trim().split('\n').at(-1)!);
    fs.writeFileSync(
      path.join(dir, 'package.json'),
      JSON.stringify({ name: 'my-connector', private: true, type: 'module' }),
    );
    const install = await attempt('npm', ['install', '--no-audit', '--no-fund', '--offline', tarball], { cwd: dir });
    expect(install.code, install.stderr).toBe(0);

    const compilerOptions = {
      target: 'ES2022',
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      strict: true,
      skipLibCheck: false,
      types: [],
      lib: ['ES2022', 'DOM'],
    };
    fs.writeFileSync(
      path.join(dir, 'connector.ts'),
      `import { SvcClient, SvcNotFoundError, type Field } from '@svc/client';
const client = new SvcClient({ baseUrl: process.env.SVC_URL!, clientId: process.env.SVC_CLIENT_ID!, clientSecret: process.env.SVC_CLIENT_SECRET! });
const field: Field = await client.fields.create({ name: 'Packed', group: 'USER' });
const missing = await client.fields.get('fld_missing').catch((e: unknown) => e);
console.log(JSON.stringify({ name: field.name, missing: missing instanceof SvcNotFoundError ? missing.error_code : null }));
declare const process: { env: Record<string, string | undefined> };
`,
    );
    fs.writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['connector.ts'] }));
    const typed = await attempt(process.execPath, [TSC, '-p', 'tsconfig.json'], { cwd: dir });
    expect(typed.stdout + typed.stderr).toBe('');
    expect(typed.code).toBe(0);

    // The types are there: a misspelt property is a compile error, not an `any`.
    fs.writeFileSync(
      path.join(dir, 'wrong.ts'),
      `import { SvcClient } from '@svc/client';\nawait new SvcClient({ baseUrl: 'x', token: 't' }).fields.create({ nme: 'x', group: 'USER' });\n`,
    );
    fs.writeFileSync(
      path.join(dir, 'tsconfig.wrong.json'),
      JSON.stringify({ compilerOptions: { ...compilerOptions, noEmit: true }, files: ['wrong.ts'] }),
    );
    const wrong = await attempt(process.execPath, [TSC, '-p', 'tsconfig.wrong.json'], { cwd: dir });
    expect(wrong.code).not.toBe(0);
    expect(wrong.stdout).toMatch(/wrong\.ts.*error TS\d+: .*'nme'/);

    const { clientId, clientSecret } = await s.live.credentials(['fields.read', 'fields.write']);
    const ran = await attempt(process.execPath, ['connector.js'], {
      cwd: dir,
      env: { SVC_URL: s.live.url, SVC_CLIENT_ID: clientId, SVC_CLIENT_SECRET: clientSecret },
    });
    expect([ran.code, ran.stderr]).toEqual([0, '']);
    expect(JSON.parse(ran.stdout)).toEqual({ name: 'Packed', missing: 'NOT_FOUND' });
  });
});
