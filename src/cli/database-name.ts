import path from 'node:path';
import type { DatabaseTarget } from '../config.js';

/** The database as the operator should see it: the SQLite file's absolute path, or the URL without its password. */
export function describeDatabase(target: DatabaseTarget): string {
  if (target.dialect === 'sqlite') return `sqlite:${path.resolve(target.path)}`;
  const url = new URL(target.url);
  if (url.password) url.password = '***';
  return url.toString();
}
