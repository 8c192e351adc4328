// Sequence order equals commit order (docs/adr/0011): a reader that follows changesSince with a cursor
// while several writers commit concurrently ends up with exactly the store's final state. If a writer
// could commit a lower seq after a reader had passed it, the reader would miss that change for good.
// PostgreSQL only: it is where transactions of different connections overlap (SQLite writers queue
// on the database lock before they read anything).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openPostgresStorage } from '../../src/adapters/postgres/postgres-storage.js';
import type { Storage } from '../../src/ports/storage.js';
import { databaseUrl, openTempPostgres, postgresSkip } from '../helpers/storage.js';
import { sampleDocument } from './sample-document.js';

const WRITERS = 8;
const BATCHES = 15;
const PER_BATCH = 4;

/** id -> seq of the newest change, as a changesSince reader would hold it. */
async function followChanges(store: Storage, cursor: { seq: number }, state: Map<string, number>): Promise<void> {
  for (;;) {
    const page = await store.documents.changesSince(cursor.seq, 50);
    if (page.length === 0) return;
    for (const c of page) {
      assert.ok(c.seq > cursor.seq);
      state.set(c.deleted ? c.id : c.doc.id, c.seq);
      cursor.seq = c.seq;
    }
  }
}

if (!databaseUrl) {
  test('change sequence under concurrent writers: PostgreSQL', { skip: postgresSkip('PostgreSQL change-sequence test') }, () => {});
} else {
  test('change sequence under concurrent writers: PostgreSQL, a following reader misses nothing', async () => {
    const f = await openTempPostgres(databaseUrl!, { max: WRITERS });
    const second = await openPostgresStorage(f.url, { max: WRITERS });
    try {
      const stores = [f.storage, second];
      let done = false;
      const writers = Array.from({ length: WRITERS }, async (_, w) => {
        for (let b = 0; b < BATCHES; b++) {
          // Records of different writers share arXiv ids, so batches merge works and relabel each
          // other's records; some batches delete a record written earlier.
          const docs = Array.from({ length: PER_BATCH }, (_, i) =>
            sampleDocument(`w${w}-b${b}-${i}`, { uris: [`arxiv://2101.${String((b * PER_BATCH + i) % 23).padStart(5, '0')}`] }),
          );
          await stores[w % 2]!.documents.upsertMany(docs, 1_700_000_000 + b);
          if (b % 5 === 4) await stores[w % 2]!.documents.delete(`w${w}-b${b - 2}-0`, 1_700_000_000 + b);
        }
      });
      const seen = new Map<string, number>();
      const cursor = { seq: 0 };
      const reader = (async () => {
        while (!done) await followChanges(f.storage, cursor, seen);
      })();
      await Promise.all(writers);
      done = true;
      await reader;
      await followChanges(f.storage, cursor, seen);

      const final = new Map((await f.storage.documents.changesSince(0, 1_000_000)).map((c) => [c.deleted ? c.id : c.doc.id, c.seq] as const));
      assert.equal(final.size, WRITERS * BATCHES * PER_BATCH);
      assert.deepEqual(seen, final);
      assert.equal(cursor.seq, await f.storage.documents.maxSeq());
    } finally {
      await second.close();
      await f.dispose();
    }
  });
}
