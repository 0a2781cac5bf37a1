// The extension's layout, as tests/unit/test_layout.py checks the host's: no hand-written file
// over the line limit (split it by concept), so a file that outgrows it fails here, not in review.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const EXT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../extension');
const MAX_LINES = 450;
// Files allowed past the limit, by path under extension/, with the reason.
const OVER_LIMIT = {};

function* jsFiles(dir) {
  for (const name of readdirSync(dir)) {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) yield* jsFiles(p);
    else if (name.endsWith('.js')) yield p;
  }
}

test(`no extension file over ${MAX_LINES} lines`, () => {
  const tooLong = {};
  let seen = 0;
  for (const file of jsFiles(EXT)) {
    seen++;
    const rel = path.relative(EXT, file).split(path.sep).join('/');
    const lines = readFileSync(file, 'utf8').split('\n').length - 1;
    if (lines > MAX_LINES && !(rel in OVER_LIMIT)) tooLong[rel] = lines;
  }
  assert.ok(seen > 50, `only ${seen} files found under ${EXT}`);
  assert.deepEqual(tooLong, {}, `files over ${MAX_LINES} lines (split them by concept)`);
});
