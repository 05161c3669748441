import { describe, expect, it } from 'vitest';
import { svc } from '../support/processes.js';

/**
 * Issue 36, 12: `svc <typo> --help` printed the general usage and exited 0, so a script could not tell a typo from a
 * real command. An unknown command or subcommand exits 2 naming it, and the nearest known command when it is a slip,
 * with or without --help; nothing is opened or run.
 */
describe('svc with an unknown command', () => {
  const cases: [string[], string, string][] = [
    [['lanch'], 'svc: unknown command: lanch', 'svc --help'],
    [['clinets', 'list'], "svc: unknown command: clinets (did you mean 'svc clients'?)", 'svc --help'],
    [['clinets', '--help'], "svc: unknown command: clinets (did you mean 'svc clients'?)", 'svc --help'],
    [['seeed', '-h'], "svc: unknown command: seeed (did you mean 'svc seed'?)", 'svc --help'],
    [['help', 'vendros'], "svc: unknown command: vendros (did you mean 'svc vendors'?)", 'svc --help'],
    [
      ['clients', 'craete', '--help'],
      "svc: unknown command: clients craete (did you mean 'svc clients create'?)",
      'svc clients --help',
    ],
    [['users', 'fly'], 'svc: unknown command: users fly', 'svc users --help'],
    [['launch', '--help'], 'svc: unknown command: launch', 'svc --help'],
  ];

  it('exits 2 naming the word and the nearest command, with or without --help', async () => {
    for (const [args, message, pointer] of cases) {
      const result = await svc(args, { DATABASE_URL: 'sqlite:/nonexistent/never-opened.sqlite' });
      expect({ args, code: result.code, stdout: result.stdout, stderr: result.stderr }).toEqual({
        args,
        code: 2,
        stdout: '',
        stderr: `${message}\nRun '${pointer}' for usage.\n`,
      });
    }
  });

  it('still prints help and exits 0 for every real command and subcommand', async () => {
    for (const args of [
      ['clients', '--help'],
      ['clients', 'create', '--help'],
      ['help', 'users'],
      ['seed', '-h'],
    ]) {
      const result = await svc(args, {});
      expect({ args, code: result.code, stderr: result.stderr }).toEqual({ args, code: 0, stderr: '' });
      expect(result.stdout).toMatch(/^Usage:/);
    }
  });
});
