// FsBlobStore housekeeping: listing a folder, and removing what interrupted writes left behind.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, utimesSync, writeFileSync, existsSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FsBlobStore } from '../../src/adapters/fs/fs-blob-store.js';

test('list gives the blobs of a folder (not interrupted writes); sweepInterrupted removes only old .tmp files', async () => {
  const root = mkdtempSync(join(tmpdir(), 'lectern-blobs-'));
  const blobs = new FsBlobStore(root);
  await blobs.put('recognition/incoming/a', new Uint8Array([1, 2, 3]));
  await blobs.put('recognition/incoming/b', new Uint8Array([4]));
  mkdirSync(join(root, 'originals'), { recursive: true });
  const oldTmp = join(root, 'recognition/incoming/c.abc.tmp');
  const newTmp = join(root, 'originals/d.pdf.def.tmp');
  writeFileSync(oldTmp, 'partial');
  writeFileSync(newTmp, 'partial');
  const hourAgo = Date.now() / 1000 - 7200;
  utimesSync(oldTmp, hourAgo, hourAgo);
  const listed = await blobs.list('recognition/incoming/');
  assert.deepEqual(listed.map((b) => [b.key, b.bytes]).sort(), [['recognition/incoming/a', 3], ['recognition/incoming/b', 1]]);
  assert.deepEqual(await blobs.list('nothing/here/'), []);
  assert.equal(await blobs.sweepInterrupted(Date.now() - 3_600_000), 1);
  assert.equal(existsSync(oldTmp), false);
  assert.equal(existsSync(newTmp), true);
});
