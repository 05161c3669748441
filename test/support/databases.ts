import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { DialectName } from '../../src/db/database.js';
import { PG_URL } from './dialects.js';
import { templateOf } from './database-templates.js';

export interface TestDatabase {
  /** DATABASE_URL of the new, empty database */
  url: string;
  drop(): Promise<void>;
}

/**
 * A new database: a temporary SQLite file, or a freshly created PostgreSQL database; empty, or with `migrated` a copy
 * of this run's migrated template (database-templates.ts) when the global setup made one, else (or when that template
 * is gone) empty: the caller migrates it, as it would anyway (migrating a copy of the template does nothing).
 */
export async function createTestDatabase(
  dialect: DialectName,
  { migrated = false }: { migrated?: boolean } = {},
): Promise<TestDatabase> {
  const name = `svc_test_${randomBytes(6).toString('hex')}`;
  const template = migrated ? templateOf(dialect) : undefined;
  if (dialect === 'sqlite') {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-test-'));
    try {
      if (template) fs.copyFileSync(template, path.join(dir, `${name}.sqlite`));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error; // the template went: an empty one
    }
    return {
      url: `sqlite:${path.join(dir, `${name}.sqlite`)}`,
      async drop() {
        fs.rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  try {
    await admin.query(template ? `create database ${name} template ${template}` : `create database ${name}`);
  } catch (error) {
    // The template went (3D000: no such database): an empty one, which the caller migrates.
    if (!template || (error as { code?: string }).code !== '3D000') throw error;
    await admin.query(`create database ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(PG_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: PG_URL });
      await client.connect();
      try {
        await client.query(`drop database if exists ${name} with (force)`);
      } finally {
        await client.end();
      }
    },
  };
}
