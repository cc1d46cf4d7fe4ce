import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after } from 'node:test';

// Folders and files for the cases-file tests, under one temporary root
// removed after the file's tests. A folder with its own package.json
// decides how Node reads a .js file in it.
export function casesFolders(prefix) {
  const root = realpathSync(mkdtempSync(path.join(tmpdir(), prefix)));
  after(() => rmSync(root, { recursive: true, force: true }));
  const folder = (name, type) => {
    const dir = path.join(root, name);
    mkdirSync(dir, { recursive: true });
    if (type) writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ type }));
    return dir;
  };
  const file = (dir, name, text) => {
    const at = path.join(dir, name);
    writeFileSync(at, text);
    return at;
  };
  return { root, folder, file };
}
