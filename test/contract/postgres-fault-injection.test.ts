// Fault injection for the PostgreSQL document store: a batch is several statements in one transaction,
// so make each statement in turn fail (a dropped connection, a server error, a failed COMMIT) and
// check that the store is left exactly as before, never with part of the batch, and still works.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type pg from 'pg';
import { PostgresDocumentStore } from '../../src/adapters/postgres/postgres-document-store.js';
import type { DocumentStore } from '../../src/ports/document-store.js';
import { databaseUrl, openTempPostgres, postgresSkip } from '../helpers/storage.js';
import { sampleDocument } from './sample-document.js';

/** A pool whose transaction connections fail their `failAt`-th query (1-based, BEGIN included). */
function failingPool(pool: pg.Pool, failAt: number): pg.Pool {
  const connect = async () => {
    const client = await pool.connect();
    let n = 0;
    return new Proxy(client, {
      get(target, prop) {
        if (prop === 'query') {
          return (...args: unknown[]) => {
            if (++n === failAt) return Promise.reject(new Error(`injected failure at statement ${failAt}`));
            return (target.query as (...a: unknown[]) => unknown)(...args);
          };
        }
        const v = Reflect.get(target, prop, target) as unknown;
        return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
      },
    });
  };
  return { connect, query: pool.query.bind(pool) } as unknown as pg.Pool;
}

async function snapshot(store: DocumentStore) {
  return { changes: await store.changesSince(0, 1000), maxSeq: await store.maxSeq(), count: await store.count() };
}

if (!databaseUrl) {
  test('PostgreSQL document store under injected failures', { skip: postgresSkip('PostgreSQL fault-injection test') }, () => {});
} else {
  test('PostgreSQL document store: a failure at any statement leaves no part of a batch or delete', async () => {
    const f = await openTempPostgres(databaseUrl!);
    try {
      const docs = f.storage.documents;
      await docs.upsertMany(
        [sampleDocument('keep', { uris: ['doi://10.1/keep'] }), sampleDocument('other', { uris: ['arxiv://2101.00001'] }), sampleDocument('gone')],
        1,
      );
      const before = await snapshot(docs);
      // Inserts, an update with new URIs, a merge that relabels a record outside the batch.
      const batch = [
        sampleDocument('new1'),
        sampleDocument('keep', { title: 'changed', uris: ['doi://10.1/keep', 'doi://10.1/z'] }),
        sampleDocument('new0', { uris: ['doi://10.1/keep', 'arxiv://2101.00001v2'] }),
      ];
      let failAt = 2; // statement 1 is BEGIN, whose failure is a failed connect
      for (;;) {
        const store = new PostgresDocumentStore(failingPool(f.storage.pool, failAt));
        try {
          await store.upsertMany(batch, 2);
        } catch (e) {
          assert.match((e as Error).message, /injected failure/);
          assert.deepEqual(await snapshot(docs), before, `failure at statement ${failAt}`);
          failAt++;
          continue;
        }
        break; // failAt is past the last statement: the batch went through
      }
      assert.ok(failAt > 8, `the batch ran ${failAt - 1} statements`);
      const after = await snapshot(docs);
      assert.equal(after.count, 5);
      assert.equal((await docs.get('other'))?.workKey, 'keep', 'the merge relabelled a record outside the batch');

      let deleteFailAt = 2;
      for (;;) {
        const store = new PostgresDocumentStore(failingPool(f.storage.pool, deleteFailAt));
        try {
          await store.delete('keep', 3);
        } catch (e) {
          assert.match((e as Error).message, /injected failure/);
          assert.deepEqual(await snapshot(docs), after, `delete failure at statement ${deleteFailAt}`);
          deleteFailAt++;
          continue;
        }
        break;
      }
      assert.equal(await docs.get('keep'), null);
      assert.equal(await docs.getByUri('doi://10.1/z'), null);
    } finally {
      await f.dispose();
    }
  });
}
