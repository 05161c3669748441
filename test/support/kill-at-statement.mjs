/**
 * Loaded into a child process with NODE_OPTIONS=--import by the tests that kill a process at a point they name
 * rather than at a time: the process SIGKILLs itself right before it runs, for the SVC_TEST_KILL_AT_COUNT-th time
 * (1 unless set), a statement whose text starts with SVC_TEST_KILL_AT, on SQLite (better-sqlite3) or PostgreSQL
 * (pg). What it had sent before stays as the kill leaves it: committed, or open in a transaction the database
 * rolls back. Without SVC_TEST_KILL_AT it changes nothing.
 */
import { createRequire } from 'node:module';

const prefix = process.env.SVC_TEST_KILL_AT;
const count = Number(process.env.SVC_TEST_KILL_AT_COUNT ?? '1');

if (prefix) {
  // The service's own copies of the drivers: resolved from the repository's root, as its bundle resolves them.
  const require = createRequire(new URL('../../package.json', import.meta.url));
  let seen = 0;
  const before = (text) => {
    if (typeof text === 'string' && text.startsWith(prefix) && ++seen >= count) process.kill(process.pid, 'SIGKILL');
  };

  const Database = require('better-sqlite3');
  const prepare = Database.prototype.prepare;
  let patched = false;
  Database.prototype.prepare = function (...args) {
    const statement = prepare.apply(this, args);
    if (!patched) {
      patched = true;
      const proto = Object.getPrototypeOf(statement);
      for (const method of ['run', 'all', 'get', 'iterate']) {
        const original = proto[method];
        proto[method] = function (...params) {
          before(this.source);
          return original.apply(this, params);
        };
      }
    }
    return statement;
  };

  const pg = require('pg');
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function (config, ...rest) {
    before(typeof config === 'string' ? config : config?.text);
    return query.call(this, config, ...rest);
  };
}
