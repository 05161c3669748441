import fs from 'node:fs';
import path from 'node:path';
export function readCheckpoint(file, streams) {
    let stored = {};
    try {
        stored = JSON.parse(fs.readFileSync(file, 'utf8'));
    }
    catch (error) {
        if (error.code !== 'ENOENT')
            throw new Error(`checkpoint ${file} is unreadable: ${error.message}`);
    }
    const result = { version: 1, streams: {}, output_bytes: stored.output_bytes ?? 0 };
    for (const s of streams)
        result.streams[s] = stored.streams?.[s] ?? null;
    return result;
}
/** Replaces the checkpoint atomically: write a temporary file, fsync it, rename it over, fsync the folder. */
export function writeCheckpoint(file, checkpoint) {
    const temp = `${file}.${process.pid}.tmp`;
    const fd = fs.openSync(temp, 'w');
    try {
        fs.writeSync(fd, `${JSON.stringify(checkpoint)}\n`);
        fs.fsyncSync(fd);
    }
    finally {
        fs.closeSync(fd);
    }
    fs.renameSync(temp, file);
    const dir = fs.openSync(path.dirname(path.resolve(file)), 'r');
    try {
        fs.fsyncSync(dir);
    }
    finally {
        fs.closeSync(dir);
    }
}
//# sourceMappingURL=checkpoint.js.map