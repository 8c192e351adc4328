// The engine's IndexDirectory port, run against every implementation: in memory, on disk, and on disk
// with the files held in shared memory for search threads (ADR 0110). Plus what the shared one adds:
// its bytes are SharedArrayBuffer views, and an index opened read-only over its published files
// (SnapshotDirectory, as a search thread does) answers like the writer.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryIndexDirectory, SearchIndex, type IndexDirectory } from '../../src/engine/index.js';
import { FsIndexDirectory } from '../../src/adapters/fs/index-directory.js';
import { SharedFsIndexDirectory, sharedFsIndexDirectories } from '../../src/adapters/fs/shared-index-directory.js';
import { SnapshotDirectory } from '../../src/search/search-threads.js';

const dirs: string[] = [];
const tmp = () => {
  const d = mkdtempSync(join(tmpdir(), 'lectern-idxdir-'));
  dirs.push(d);
  return d;
};
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const impls: [string, () => IndexDirectory][] = [
  ['memory', () => new MemoryIndexDirectory()],
  ['fs', () => new FsIndexDirectory(tmp())],
  ['shared fs', () => new SharedFsIndexDirectory(tmp())],
];

for (const [name, make] of impls) {
  describe(`IndexDirectory contract: ${name}`, () => {
    test('write, read, replace, list, delete', () => {
      const d = make();
      assert.equal(d.read('a'), null);
      d.write('a', new Uint8Array([1, 2, 3]));
      assert.deepEqual([...d.read('a')!], [1, 2, 3]);
      const src = new Uint8Array([9, 9]);
      d.write('a', src);
      src[0] = 0; // the directory keeps its own copy
      assert.deepEqual([...d.read('a')!], [9, 9]);
      d.write('b', new Uint8Array(0));
      assert.deepEqual(d.list().sort(), ['a', 'b']);
      assert.equal(d.read('b')!.byteLength, 0);
      d.delete('a');
      d.delete('missing');
      assert.equal(d.read('a'), null);
      assert.deepEqual(d.list(), ['b']);
    });

    test('an index written through it reopens with the same answers', () => {
      const d = make();
      const idx = SearchIndex.open(d, { defaultLanguage: 'en' });
      idx.add({ id: 'x1', title: 'Salt caverns store hydrogen', abstract: 'Cushion gas keeps pressure.', body: null, language: 'en', type: 'article', issuedAt: null, publisher: null, issns: [], uris: [], references: [], workKey: null });
      idx.add({ id: 'x2', title: 'Sandstone porosity', abstract: 'Porosity of sandstone.', body: null, language: 'en', type: 'article', issuedAt: null, publisher: null, issns: [], uris: [], references: [], workKey: null });
      idx.commit('1');
      const before = idx.search({ text: 'hydrogen caverns', limit: 5 }).hits.map((h) => [h.id, h.score]);
      idx.close();
      const again = SearchIndex.open(d, { defaultLanguage: 'en' });
      assert.deepEqual(again.search({ text: 'hydrogen caverns', limit: 5 }).hits.map((h) => [h.id, h.score]), before);
      assert.equal(again.checkpoint, '1');
      again.close();
    });
  });
}

describe('shared fs directory (search threads)', () => {
  test('bytes live in shared memory, written and read; files() is what a thread opens', () => {
    const root = tmp();
    const dirsOf = sharedFsIndexDirectories(root);
    const d = dirsOf.open('documents');
    assert.equal(dirsOf.open('documents'), d, 'one directory object per index');
    const idx = SearchIndex.open(d, { defaultLanguage: 'en' });
    for (let i = 0; i < 20; i++) idx.add({ id: `d${i}`, title: `Note ${i} on hydrogen storage`, abstract: i % 2 ? 'salt caverns' : 'depleted reservoirs', body: null, language: 'en', type: 'article', issuedAt: null, publisher: null, issns: [], uris: [], references: [], workKey: null });
    idx.commit('7');
    const files = dirsOf.files('documents');
    assert.ok(files.has('manifest.json'));
    for (const [n, bytes] of files) assert.ok(bytes.buffer instanceof SharedArrayBuffer, `${n} is shared`);
    // a thread's read-only view answers like the writer
    const reader = SearchIndex.open(new SnapshotDirectory(files), { defaultLanguage: 'en' });
    const q = { text: 'hydrogen salt caverns', limit: 10 };
    assert.deepEqual(reader.search(q).hits.map((h) => [h.id, h.score]), idx.search(q).hits.map((h) => [h.id, h.score]));
    assert.equal(reader.checkpoint, '7');
    assert.throws(() => new SnapshotDirectory(files).write('x'), /read-only/);
    idx.close();
    // a fresh directory object reads the files from disk into shared memory
    const fresh = new SharedFsIndexDirectory(join(root, 'documents'));
    const m = fresh.read('manifest.json')!;
    assert.ok(m.buffer instanceof SharedArrayBuffer);
    assert.deepEqual([...m], [...files.get('manifest.json')!]);
    // reset forgets the held files
    dirsOf.reset('documents');
    assert.equal(dirsOf.files('documents').size, 0);
  });
});
