// @ts-check
import { randomBytes } from 'node:crypto';
import { rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';

// Replaces FILE whole: TEXT goes into a temporary file beside it, then is
// renamed over the name, so a reader (a CI step, a browser reloading, a
// later compare) never sees half a report, and a failed write leaves
// whatever was there before and no temporary file.
export async function replaceFile(file, text) {
  const temporary = path.join(
    path.dirname(file),
    `.${path.basename(file)}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`,
  );
  try {
    await writeFile(temporary, text, { flag: 'wx' });
    await rename(temporary, file);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}

// An export (--json FILE, --markdown, --html), replaced whole; throws with
// the file named.
export async function writeExportFile(file, text) {
  try {
    await replaceFile(file, text);
  } catch (error) {
    throw Object.assign(new Error(`cannot write ${file}: ${error.message}`, { cause: error }), {
      code: error.code,
      path: file,
    });
  }
}
