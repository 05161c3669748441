import fs from 'node:fs';
import path from 'node:path';
import { packageRoot } from '../config.env.js';

/** The package's version (package.json in the package's folder, from src/ or dist/ alike). */
export function packageVersion(): string {
  const parsed: unknown = JSON.parse(fs.readFileSync(path.join(packageRoot(), 'package.json'), 'utf8'));
  const version = typeof parsed === 'object' && parsed !== null && 'version' in parsed ? parsed.version : null;
  return typeof version === 'string' ? version : 'unknown';
}
