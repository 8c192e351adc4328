// The search indexes follow the store and record the analysis that built them: an index built by
// another text analysis is discarded at open and rebuilt from the store, never searched with
// mismatched tokens.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fsIndexDirectories } from '../../src/adapters/fs/index-directories.js';
import { ANALYSIS_VERSION, SearchIndex } from '../../src/engine/index.js';
import { checkpointLabel, IndexSet, parseCheckpointLabel } from '../../src/search/index-set.js';
import { doc } from '../helpers/documents.js';
import { openMemorySqlite, tempDir } from '../helpers/storage.js';

const clock = { nowMs: () => 1_700_000_000_000 };

test('checkpoint labels carry the store sequence and the analysis version; bare labels are version 1', () => {
  assert.equal(checkpointLabel(42), `42@a${ANALYSIS_VERSION}`);
  assert.deepEqual(parseCheckpointLabel(checkpointLabel(42)), { seq: 42, analysis: ANALYSIS_VERSION });
  assert.deepEqual(parseCheckpointLabel('17'), { seq: 17, analysis: 1 });
  assert.equal(parseCheckpointLabel('x'), null);
});

test('an index built by another analysis version is rebuilt from the store at open', async () => {
  const store = await openMemorySqlite();
  const tmp = tempDir();
  try {
    await store.storage.documents.upsertMany([doc('d1', { title: 'CTLA4 blockade in melanoma' }), doc('d2', { title: 'Heat shock proteins' })], 1_700_000_000);
    const dirs = fsIndexDirectories(join(tmp.dir, 'index'));
    let set = IndexSet.open(dirs, store.storage.documents, clock);
    assert.equal(set.rebuildReason, null);
    await set.catchUp();
    const seq = set.checkpoint();
    assert.ok(seq > 0);
    set.close();

    // Re-label the documents index as built by analysis 1 (a bare sequence, as the first release wrote).
    const raw = SearchIndex.open(dirs.open('documents'));
    raw.add({ id: 'ghost', title: 'only in the old index' });
    raw.commit(String(seq));
    raw.close();

    set = IndexSet.open(dirs, store.storage.documents, clock);
    assert.match(set.rebuildReason ?? '', /documents index was built with text analysis 1/);
    assert.equal(set.checkpoint(), 0, 'restarts from the beginning of the store');
    await set.catchUp();
    assert.equal(set.checkpoint(), seq);
    const hits = set.get('documents').search({ text: 'only old index ghost', limit: 10 }).hits.map((h) => h.id);
    assert.deepEqual(hits, [], 'what the old index held beyond the store is gone');
    assert.deepEqual(set.get('documents').search({ text: 'melanoma', limit: 10 }).hits.map((h) => h.id), ['d1']);
    set.close();

    // Reopened with the current version: nothing to rebuild.
    set = IndexSet.open(dirs, store.storage.documents, clock);
    assert.equal(set.rebuildReason, null);
    assert.equal(set.checkpoint(), seq);
    set.close();
  } finally {
    await store.dispose();
    tmp.remove();
  }
});

test('an index in a file format this engine does not read is rebuilt from the store at open', async () => {
  const store = await openMemorySqlite();
  const tmp = tempDir();
  try {
    await store.storage.documents.upsertMany([doc('d1', { title: 'Hydrogen storage in salt caverns' })], 1_700_000_000);
    const dirs = fsIndexDirectories(join(tmp.dir, 'index'));
    let set = IndexSet.open(dirs, store.storage.documents, clock);
    await set.catchUp();
    set.close();
    const manifest = join(tmp.dir, 'index', 'social', 'manifest.json');
    writeFileSync(manifest, readFileSync(manifest, 'utf8').replace('"format":1', '"format":99'));
    assert.throws(() => SearchIndex.open(dirs.open('social')), { name: 'IndexFormatError' });

    set = IndexSet.open(dirs, store.storage.documents, clock);
    assert.match(set.rebuildReason ?? '', /social index is in another file format \(unsupported index manifest format 99\)/);
    await set.catchUp();
    assert.deepEqual(set.get('documents').search({ text: 'salt caverns', limit: 10 }).hits.map((h) => h.id), ['d1']);
    set.close();
  } finally {
    await store.dispose();
    tmp.remove();
  }
});

test('an index of format 2 segments (before stored fields, ADR 0280) is rebuilt from the store at open, with its stored records', async () => {
  const store = await openMemorySqlite();
  const tmp = tempDir();
  try {
    await store.storage.documents.upsertMany([doc('d1', { title: 'Hydrogen storage in salt caverns' })], 1_700_000_000);
    const dirs = fsIndexDirectories(join(tmp.dir, 'index'));
    let set = IndexSet.open(dirs, store.storage.documents, clock);
    await set.catchUp();
    set.close();
    // what the previous release wrote: the same container with version 2 in its header
    const dir = join(tmp.dir, 'index', 'documents');
    const segs = readdirSync(dir).filter((f) => f.startsWith('seg-'));
    assert.ok(segs.length > 0);
    for (const f of segs) {
      const bytes = readFileSync(join(dir, f));
      bytes.writeUInt32LE(2, 4);
      writeFileSync(join(dir, f), bytes);
    }
    assert.throws(() => SearchIndex.open(dirs.open('documents')), { name: 'IndexFormatError', message: 'unsupported segment version 2' });

    set = IndexSet.open(dirs, store.storage.documents, clock);
    assert.match(set.rebuildReason ?? '', /documents index is in another file format \(unsupported segment version 2\)/);
    await set.catchUp();
    assert.deepEqual(set.get('documents').search({ text: 'salt caverns', limit: 10 }).hits.map((h) => h.id), ['d1']);
    const stored = JSON.parse(new TextDecoder().decode(set.get('documents').stored(['d1']).get('d1'))) as { title: string; workKey: string };
    assert.equal(stored.title, 'Hydrogen storage in salt caverns');
    assert.equal(stored.workKey, 'd1');
    set.close();
  } finally {
    await store.dispose();
    tmp.remove();
  }
});
