import fsp from 'node:fs/promises';

/**
 * Flushes a folder's entries (the names in it) to disk: a file created or renamed into it is durable only once its
 * folder is flushed too (a receipt stored, a database restored into place).
 */
export async function syncFolder(name: string): Promise<void> {
  const handle = await fsp.open(name, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
