import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';
import { describeLive } from '../sdk/live-server.js';
import { ROOT } from '../support/processes.js';

const run = promisify(execFile);
const PLACEHOLDER = '…';

/** The README's "Then, as a new user" block: each command (continuations joined) with the output shown under it. */
function newUserSteps(): { command: string; shown: string[] }[] {
  const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const block = /Then, as a new user:\s*```sh\n([\s\S]*?)```/.exec(readme)?.[1];
  if (!block) throw new Error('README.md has no "Then, as a new user" sh block');
  const steps: { command: string; shown: string[] }[] = [];
  let pending = '';
  for (const line of block.split('\n')) {
    if (line.trim() === '') continue;
    if (line.startsWith('#')) steps.at(-1)!.shown.push(line.slice(1).trim());
    else if (line.endsWith('\\')) pending += `${line.slice(0, -1)} `;
    else {
      steps.push({ command: `${pending}${line}`.trim(), shown: [] });
      pending = '';
    }
  }
  return steps;
}

/** An answer has the shown JSON's keys, and its values wherever the README shows one in full (not "…"). */
function expectLike(actual: unknown, shown: unknown, where: string): void {
  if (typeof shown === 'string' && shown.includes(PLACEHOLDER)) {
    const [start] = shown.split(PLACEHOLDER);
    expect(typeof actual === 'string' && actual.startsWith(start!), `${where}: ${String(actual)}`).toBe(true);
  } else if (shown !== null && typeof shown === 'object' && !Array.isArray(shown)) {
    expect(Object.keys(actual as object).sort(), where).toEqual(Object.keys(shown).sort());
    for (const [key, value] of Object.entries(shown)) expectLike((actual as any)[key], value, `${where}.${key}`);
  } else expect(actual, where).toEqual(shown);
}

describeLive('the README, as written', (s) => {
  it('runs the "as a new user" commands one after another and answers what it shows', async () => {
    const steps = newUserSteps();
    expect(steps.map((st) => st.command.split(' ')[0])).toEqual(['./bin/svc.js', 'curl', 'curl', 'curl']);
    const values: Record<string, string> = {};
    for (const step of steps) {
      // The README's placeholders are the values earlier answers gave; its address is the server's.
      const command = step.command
        .replaceAll('http://127.0.0.1:8080', s.live.url)
        .replace(/cli_…/g, values.client_id ?? 'cli_…')
        .replace(/svc_cs_…/g, values.client_secret ?? 'svc_cs_…')
        .replace(/svc_at_…/g, values.access_token ?? 'svc_at_…')
        .replace(/extended_field_…/g, values.svc_id ?? 'extended_field_…');
      const { stdout } = await run('bash', ['-c', command], {
        cwd: ROOT,
        env: { ...process.env, DATABASE_URL: s.live.ctx.database.url },
      });
      const answer = JSON.parse(stdout);
      for (const shown of step.shown) expectLike(answer, JSON.parse(shown), step.command.slice(0, 40));
      if (!Array.isArray(answer.items)) Object.assign(values, answer);
      else expect(answer.items.map((v: any) => [v.value, v.remote_id])).toEqual([['6000 Travel', '6000']]);
    }
    expect(values).toMatchObject({ name: 'GL Account', group: 'ACCOUNTING', svc_id: expect.any(String) });
  });
});
