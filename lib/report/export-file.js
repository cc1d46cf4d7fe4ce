import { randomBytes } from 'node:crypto';
import { rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';

// Writes an export (--markdown, --html) whole: into a temporary file beside
// it, then renamed over the name asked for, so a reader (a CI step, a
// browser reloading) never sees half a report, and a failed write leaves
// whatever was there before. Throws with the file named.
export async function writeExportFile(file, text) {
  const temporary = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`);
  try {
    await writeFile(temporary, text, { flag: 'wx' });
    await rename(temporary, file);
  } catch (error) {
    await rm(temporary, { force: true });
    throw Object.assign(new Error(`cannot write ${file}: ${error.message}`, { cause: error }), { code: error.code, path: file });
  }
}
