// Restart resume: a service stopped in the middle of a conversion leaves the job processing with its
// page checkpoints; the next start re-queues it and converts only the pages not yet checkpointed. Run on
// SQLite and, with DATABASE_URL, on PostgreSQL.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { OpenedStorage } from '../../src/app.js';
import { openPostgresStorage } from '../../src/adapters/postgres/postgres-storage.js';
import { recognitionJobStoreFor } from '../../src/adapters/recognition-job-store-factory.js';
import { convertDocument, PIPELINE_VERSION, RecognitionError } from '../../src/recognition/index.js';
import type { ConvertFn } from '../../src/recognition-jobs/index.js';
import { testApp } from '../helpers/app.js';
import { createTestSchema, databaseUrl, postgresSkip } from '../helpers/storage.js';
import { sampleArticle } from '../recognition/helpers/pdf-builder.js';
import { needs } from '../recognition/helpers/tools.js';
import { submit, waitFor } from './helpers.js';

const mutool = await needs('mutool');

/** A converter that stops (as a shutdown would) once page `n` is checkpointed, until aborted. */
const stallAfter = (n: number) => (inner: ConvertFn): ConvertFn => (bytes, options) =>
  inner(bytes, {
    ...options,
    onPage: async (c) => {
      await options.onPage?.(c);
      if (c.page >= n) {
        await new Promise<void>((_, reject) => {
          if (options.signal?.aborted) reject(new RecognitionError('cancelled', 'stopped'));
          options.signal?.addEventListener('abort', () => reject(new RecognitionError('cancelled', 'stopped')), { once: true });
        });
      }
    },
  });

/** A converter that records which pages it extracted. */
function recording(): { wrap: (inner: ConvertFn) => ConvertFn; pages: number[] } {
  const pages: number[] = [];
  return {
    pages,
    wrap: (inner) => (bytes, options) => inner(bytes, { ...options, onPage: async (c) => (pages.push(c.page), options.onPage?.(c)) }),
  };
}

async function resumeScenario(openStorage: (() => Promise<OpenedStorage>) | null): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'lectern-resume-'));
  try {
    const bytes = sampleArticle(5);
    const first = await testApp({ dataDir }, { recognition: { wrapConvert: stallAfter(2), workers: 1 }, ...(openStorage ? { storage: await openStorage() } : {}) });
    const a = await first.account({ credits: 100 });
    const res = await submit(first, a.key, bytes);
    assert.equal(res.statusCode, 202);
    const id = res.json().id as string;
    for (let i = 0; ; i++) {
      const job = (await first.http.inject({ method: 'GET', url: `/v1/recognitions/${id}`, headers: { 'x-api-key': a.key } })).json();
      if (job.pages_done >= 2) {
        assert.equal(job.status, 'processing');
        assert.equal(job.pages_total, 5);
        break;
      }
      assert.ok(i < 400, 'the conversion did not reach page 2');
      await sleep(25);
    }
    const jobs = recognitionJobStoreFor(first.storage);
    const sha256 = (await jobs.get(id))!.sha256;
    assert.deepEqual((await jobs.checkpoints(sha256, PIPELINE_VERSION)).map((c) => c.page), [1, 2]);
    await first.dispose(); // aborts the running conversion; the job stays processing
    const rec = recording();
    const third = await testApp({ dataDir }, { recognition: { wrapConvert: rec.wrap, workers: 1 }, ...(openStorage ? { storage: await openStorage() } : {}) });
    try {
      const job = await waitFor(third, a.key, id);
      assert.equal(job.status, 'completed', JSON.stringify(job.error));
      assert.deepEqual(rec.pages, [3, 4, 5], 'only the pages without a checkpoint are extracted again');
      assert.equal(job.charged_credits, 5);
      assert.equal(await third.storage.ledger.balance(a.id), 95);
      const result = await third.http.inject({ method: 'GET', url: `/v1/recognitions/${id}/result`, headers: { 'x-api-key': a.key, accept: 'text/markdown' } });
      const fresh = await convertDocument(bytes, { runner: third.runner });
      assert.equal(result.body, fresh.markdown, 'the resumed result equals an uninterrupted conversion');
      assert.deepEqual(await recognitionJobStoreFor(third.storage).checkpoints(sha256, PIPELINE_VERSION), [], 'checkpoints are dropped once the result is cached');
    } finally {
      await third.dispose();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

test('restart resume (SQLite): a job stopped mid-conversion completes after a restart without redoing checkpointed pages', { skip: mutool }, async () => {
  await resumeScenario(null);
});

test('restart resume (PostgreSQL)', { skip: mutool || (databaseUrl ? false : postgresSkip('PostgreSQL restart resume')) }, async () => {
  const schema = await createTestSchema(databaseUrl!);
  try {
    await resumeScenario(() => openPostgresStorage(schema.url, { max: 4 }));
  } finally {
    await schema.drop();
  }
});
