import fs from 'node:fs';
import type { DatabaseTarget } from '../config.js';
import type { Db } from './database.js';
import { openPostgres } from './postgres.js';
import { openSqlite } from './sqlite.js';

/**
 * Refuses a SQLite file that is not there. Opening one makes it (and its folders), so a mistyped path would otherwise
 * give a new, empty database: for what only makes sense on an existing one (a backup, a copy's source, a plan, an
 * account's export or deletion, a CLI command that lists or changes what is there). PostgreSQL never makes a database
 * on connect: a mistyped name fails there.
 */
export function databaseMustExist(target: DatabaseTarget): void {
  if (target.dialect === 'sqlite' && target.path !== ':memory:' && !fs.existsSync(target.path))
    throw new Error(`the database file ${target.path} does not exist`);
}

/** `existing`: refuse a SQLite file that is not there (databaseMustExist) instead of making a new database. */
export function openDatabase(target: DatabaseTarget, options: { poolSize?: number; existing?: boolean } = {}): Db {
  if (options.existing) databaseMustExist(target);
  return target.dialect === 'sqlite'
    ? openSqlite(target.path)
    : openPostgres(target.url, options.poolSize ?? 10, target.listenUrl, target.namedStatements ?? false);
}
