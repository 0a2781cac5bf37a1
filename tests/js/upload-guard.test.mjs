// The worker's last check on browser_upload_file paths (the host checks the allowed folders).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { uploadPathProblem } from '../../extension/background/browser-tools.js';

test('uploads: full paths only, never a dotfile, a hidden folder or ..', () => {
  assert.equal(uploadPathProblem(['/home/ada/uploads/avatar.png', 'C:\\Users\\ada\\up\\cv.pdf']), null);
  assert.match(uploadPathProblem(['/home/ada/.ssh/id_rsa']), /refused: dotfiles, hidden folders/);
  assert.match(uploadPathProblem(['/home/ada/uploads/.env']), /refused/);
  assert.match(uploadPathProblem(['/home/ada/uploads/../.gnupg/key']), /refused/);
  assert.match(uploadPathProblem(['C:\\Users\\ada\\.aws\\credentials']), /refused/);
  assert.match(uploadPathProblem(['avatar.png']), /not an absolute path/);
  assert.match(uploadPathProblem([]), /Give 1 to 32 files/);
  assert.match(uploadPathProblem('/etc/passwd'), /Give 1 to 32 files/);
  assert.match(uploadPathProblem(Array(33).fill('/a/b')), /Give 1 to 32 files/);
  assert.match(uploadPathProblem(['/a/b\0c']), /full path/);
});
