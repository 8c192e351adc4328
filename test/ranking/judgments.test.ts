// Judgments for `lectern ranking train` (src/ranking/judgments.ts): feedback given through the API
// carries the query of the rated search (signed in its token) and becomes judged queries; BEIR qrels
// files are read through the SourceFiles port.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FsSourceFiles } from '../../src/adapters/fs/fs-source-files.js';
import { communityStoreFor } from '../../src/adapters/community-store-factory.js';
import { judgmentsFromBeir, judgmentsFromFeedback, readFeedback } from '../../src/ranking/judgments.js';
import { FEEDBACK_QUERY_MAX_BYTES, signFeedbackToken, verifyFeedbackToken } from '../../src/search/feedback-token.js';
import type { StoredFeedback } from '../../src/ports/community-store.js';
import { testApp } from '../helpers/app.js';
import { doc, seed } from '../helpers/documents.js';

test('feedback through the API is stored with its search query and becomes a judged query', async () => {
  const app = await testApp();
  try {
    const { key } = await app.account({ credits: 10_000 });
    await seed(app, [
      doc('h1', { title: 'Underground hydrogen storage in salt caverns', abstract: 'Salt caverns store hydrogen.' }),
      doc('h2', { title: 'Hydrogen storage in depleted gas reservoirs', abstract: 'Reservoirs and cushion gas.' }),
    ]);
    await app.indexes!.catchUp();
    const call = async (url: string, payload: object) => {
      const res = await app.http.inject({ method: 'POST', url, headers: { 'x-api-key': key }, payload });
      return { status: res.statusCode, body: res.json() };
    };
    for (const [relevance, feedbackId] of [[3, randomUUID()], [1, randomUUID()]] as const) {
      const s = await call('/v2/search/', { query: '  Hydrogen   storage ', limit: 5 });
      assert.equal(s.status, 200);
      const fb = await call('/v2/search/feedback', { trajectory_id: s.body.trajectory.id, feedback_token: s.body.trajectory.feedback_token, feedback_id: feedbackId, ratings: [{ document_id: 'h1', relevance }, { document_id: 'h2', relevance: 0 }, { document_id: 'h2', relevance: 2, ordinal: 0 }] });
      assert.equal(fb.status, 200, JSON.stringify(fb.body));
    }
    const records = await readFeedback(communityStoreFor(app.storage), 0);
    assert.equal(records.length, 2);
    const body = records[0]!.body as { query: string; indexNames: string[] };
    assert.equal(body.query, '  Hydrogen   storage ');
    assert.deepEqual(body.indexNames, ['documents']);
    const j = judgmentsFromFeedback(records, 'documents');
    assert.equal(j.used, 2);
    assert.equal(j.queries.length, 1);
    // h1: mean of 3 and 1; h2: its best rating in each feedback (the passage rating 2), averaged
    assert.deepEqual([...j.queries[0]!.rels], [['h1', 2], ['h2', 2]]);
    assert.equal(judgmentsFromFeedback(records, 'social').otherIndex, 2);
  } finally {
    await app.dispose();
  }
});

test('tokens carry queries up to the byte limit; older and longer ones judge nothing', () => {
  const secret = 's';
  const short = verifyFeedbackToken(secret, signFeedbackToken(secret, { trajectoryId: 't', accountId: 1, expiresAt: 10, query: 'q', indexNames: ['documents'] }), 0)!;
  assert.equal(short.query, 'q');
  assert.deepEqual(short.indexNames, ['documents']);
  const long = verifyFeedbackToken(secret, signFeedbackToken(secret, { trajectoryId: 't', accountId: 1, expiresAt: 10, query: 'é'.repeat(FEEDBACK_QUERY_MAX_BYTES / 2 + 1), indexNames: ['documents'] }), 0)!;
  assert.equal(long.query, undefined);
  assert.equal(verifyFeedbackToken(secret, signFeedbackToken(secret, { trajectoryId: 't', accountId: 1, expiresAt: 10 }), 0)!.query, undefined);

  const rec = (body: unknown, i: number): StoredFeedback => ({ accountId: 1, feedbackId: `f${i}`, trajectoryId: `t${i}`, body, at: i });
  const j = judgmentsFromFeedback(
    [
      rec({ ratings: [{ documentId: 'a', relevance: 3 }] }, 1),
      rec({ query: 'x', indexNames: ['documents', 'social'], ratings: [{ documentId: 'a', relevance: 3 }] }, 2),
      rec({ query: 'x', indexNames: ['documents'], ratings: [] }, 3),
      rec({ query: 'Graphene', indexNames: ['documents'], ratings: [{ documentId: 'a', relevance: 3 }] }, 4),
      rec({ query: 'graphene ', indexNames: ['documents'], ratings: [{ documentId: 'b', relevance: 2 }] }, 5),
    ],
    'documents',
  );
  assert.deepEqual({ records: j.records, used: j.used, withoutQuery: j.withoutQuery, otherIndex: j.otherIndex, withoutRatings: j.withoutRatings }, { records: 5, used: 2, withoutQuery: 1, otherIndex: 1, withoutRatings: 1 });
  assert.equal(j.queries.length, 1);
  assert.equal(j.queries[0]!.text, 'Graphene');
  assert.deepEqual([...j.queries[0]!.rels], [['a', 3], ['b', 2]]);
});

test('BEIR qrels: header skipped, unknown queries counted, bad scores refused with the line', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'lectern-qrels-'));
  try {
    mkdirSync(join(dir, 'qrels'));
    writeFileSync(join(dir, 'queries.jsonl'), '{"_id": "1", "text": "first query"}\n{"_id": 2, "text": "second"}\n');
    writeFileSync(join(dir, 'qrels', 'train.tsv'), 'query-id\tcorpus-id\tscore\n1\td1\t1\n1\td2\t0\n2\td3\t2\n9\td4\t1\n');
    writeFileSync(join(dir, 'qrels', 'bad.tsv'), 'q\td\ts\n1\td1\tmany\n');
    const files = new FsSourceFiles();
    const r = await judgmentsFromBeir(files, join(dir, 'queries.jsonl'), join(dir, 'qrels', 'train.tsv'), 'documents');
    assert.equal(r.unknownQueries, 1);
    assert.deepEqual(r.queries.map((q) => [q.id, q.text, [...q.rels]]), [['1', 'first query', [['d1', 1], ['d2', 0]]], ['2', 'second', [['d3', 2]]]]);
    await assert.rejects(judgmentsFromBeir(files, join(dir, 'queries.jsonl'), join(dir, 'qrels', 'bad.tsv'), 'documents'), /bad\.tsv:2: score "many" is not a number/);
    await assert.rejects(judgmentsFromBeir(files, join(dir, 'nope.jsonl'), join(dir, 'qrels', 'train.tsv'), 'documents'), /nope\.jsonl not found/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
