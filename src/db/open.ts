import type { DatabaseTarget } from '../config.js';
import type { Db } from './database.js';
import { openPostgres } from './postgres.js';
import { openSqlite } from './sqlite.js';

export function openDatabase(target: DatabaseTarget, options: { poolSize?: number } = {}): Db {
  return target.dialect === 'sqlite'
    ? openSqlite(target.path)
    : openPostgres(target.url, options.poolSize ?? 10, target.listenUrl);
}
