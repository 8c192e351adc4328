// The search thread pool (src/search/search-threads.ts) with stand-in threads: answers and ApiErrors
// come back by request id; a thread that exits fails its searches; a thread that keeps exiting right
// after starting is restarted with back-off while searches get 503 instead of hanging (ADR 0110).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { SearchThreads, type Snapshot } from '../../src/search/search-threads.js';
import { AppError } from '../../src/domain/errors.js';
import type { SearchExecution, SearchRequest } from '../../src/search/search-types.js';

const dir = mkdtempSync(join(tmpdir(), 'lectern-threads-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const script = (name: string, body: string) => {
  const p = join(dir, name);
  writeFileSync(p, `import { parentPort } from 'node:worker_threads';\n${body}\n`);
  return pathToFileURL(p);
};
const empty = () => ({}) as Snapshot;
const req = (query: string) => ({ query }) as unknown as SearchRequest;

test('answers and ApiErrors come back to the search that asked', async () => {
  const echo = script(
    'echo.mjs',
    `parentPort.on('message', (m) => {
      if (m.kind !== 'search') return;
      if (m.request.query === 'refuse') parentPort.postMessage({ kind: 'failed', id: m.id, error: { app: true, code: 'feature_unavailable', message: 'no such channel', extra: { missing: 'sparse' } } });
      else if (m.request.query === 'crash') parentPort.postMessage({ kind: 'failed', id: m.id, error: { app: false, message: 'boom' } });
      else setTimeout(() => parentPort.postMessage({ kind: 'done', id: m.id, us: 10, result: { hits: [], totalHits: m.request.query.length, queueUs: 0 } }), 5);
    });`,
  );
  const pool = new SearchThreads(echo, 2, null, empty, () => undefined);
  try {
    const [a, b] = await Promise.all([pool.execute(req('ab'), 0), pool.execute(req('abcd'), 0)]);
    assert.equal(a.totalHits, 2);
    assert.equal(b.totalHits, 4);
    assert.ok(a.queueUs >= 0);
    await assert.rejects(pool.execute(req('refuse'), 0), (e: unknown) => e instanceof AppError && e.code === 'feature_unavailable' && e.extra.missing === 'sparse');
    await assert.rejects(pool.execute(req('crash'), 0), /search thread: boom/);
    assert.equal(pool.inflight, 0);
  } finally {
    await pool.close();
  }
  await assert.rejects(pool.execute(req('late'), 0), (e: unknown) => e instanceof AppError && e.code === 'service_unavailable');
});

test('a thread that exits at once fails its search, then searches get 503 while it is restarted with back-off', async () => {
  const dying = script('dying.mjs', `setTimeout(() => process.exit(3), 50);`);
  const reports: string[] = [];
  const pool = new SearchThreads(dying, 1, null, empty, (err) => reports.push((err as Error).message));
  try {
    await assert.rejects(pool.execute(req('x'), 0), /exited \(code 3\) during the search/);
    // A search during the back-off gets 503. On a loaded machine the next search can come after the first
    // back-off (1 s) already ended and meet the restarted thread, which dies too: the back-off doubles, so
    // a later search meets one (a condition, not a time: issue 25).
    let answered: unknown = null;
    for (let i = 0; i < 8 && !(answered instanceof AppError); i++) {
      answered = await pool.execute(req(`y${i}`), 0).then(
        () => assert.fail('a search on a thread that exits at once succeeded'),
        (e: unknown) => e,
      );
      if (!(answered instanceof AppError)) assert.match(String(answered), /exited \(code 3\) during the search/);
    }
    assert.ok(answered instanceof AppError && answered.code === 'service_unavailable' && answered.headers['Retry-After'] === '5', String(answered));
    assert.ok(reports.some((m) => /restarting in 1000 ms/.test(m)), reports.join('\n'));
  } finally {
    await pool.close();
  }
});

test('pacing (ADR 0244): while the flag is on, each search thread rests after every search; off, never', async () => {
  const module = new URL('../../src/search/search-threads.js', import.meta.url).href;
  const busy = script(
    'busy.mjs',
    `import { serveSearches } from ${JSON.stringify(module)};
    serveSearches(parentPort, { apply() {} }, async (r) => {
      const t = Date.now();
      while (Date.now() - t < 2);
      return { hits: [], totalHits: r.query.length, queueUs: 0 };
    });`,
  );
  const pool = new SearchThreads(busy, 2, null, empty, () => undefined);
  try {
    for (let i = 0; i < 6; i++) assert.equal((await pool.execute(req('abc'), 0)).totalHits, 3);
    assert.equal(pool.pacing, false);
    assert.equal(pool.pacingRests, 0);
    pool.pace(true);
    assert.equal(pool.pacing, true);
    const answers = await Promise.all(Array.from({ length: 6 }, () => pool.execute(req('abcd'), 0)));
    assert.deepEqual(answers.map((a) => a.totalHits), [4, 4, 4, 4, 4, 4], 'searches are still answered while pacing');
    // a thread counts its rest right after posting the answer: wait for the last ones to be counted
    for (let i = 0; i < 200 && pool.pacingRests < 6; i++) await new Promise((r) => setTimeout(r, 10));
    // at least one rest per search: a thread checks the flag just after posting its answer, so the last
    // search before pace(true) may find the flag already on and rest too
    assert.ok(pool.pacingRests >= 6, String(pool.pacingRests));
    pool.pace(false);
    // once each thread has answered a later search, its checks of the flag from before are done
    for (let i = 0; i < 4; i++) await pool.execute(req('ab'), 0);
    const rests = pool.pacingRests;
    for (let i = 0; i < 4; i++) await pool.execute(req('ab'), 0);
    assert.equal(pool.pacingRests, rests, 'no rest once pacing is off');
  } finally {
    await pool.close();
  }
});

test('encoded hits come back as a flat message (ADR 0378): the same execution, the candidate ranking sent again only when it changes', async () => {
  const threadsModule = new URL('../../src/search/search-threads.js', import.meta.url).href;
  const lean = script(
    'lean.mjs',
    `import { serveSearches } from ${JSON.stringify(threadsModule)};
    const contract = (k) => ({ name: 'v1', features: ['bm25f', 'phrase'], rrfPolicy: 'rrf_k = ' + k, vectorCombiner: { name: 'max', topK: null }, sparseQuery: { maxQueryDims: 32 } });
    serveSearches(parentPort, { apply() {} }, async (r) => {
      const q = r.query;
      return {
        rankingMode: q === 'passages' ? 'passages' : 'documents',
        hits: [{ id: 'w1' }, { id: 'w2' }],
        totalHits: q.length,
        hasNext: q === 'next',
        correctedQuery: q === 'next' ? 'nxt' : null,
        embedMs: q === 'passages' ? 3 : null,
        traces: q === 'passages' ? [{ branch: 'bm25f', hits: [] }] : null,
        engineUs: 11, recordsUs: 22, snippetsUs: 33, queueUs: 0,
        // a new object every search, as the service builds it; k changes with the query 'rrf60'
        candidateRanking: q === 'none' ? null : { method: 'rrf', contract: contract(q === 'rrf60' ? 60 : 20), l2: null, modelSha256: null },
        rankingStages: q === 'next' ? [{ stage: 'cross', us: 5 }] : [],
      };
    }, () => undefined, (hits) => {
      // laid out as the route's encoder makes it: 64 bytes of room before, 2048 after
      const text = new TextEncoder().encode(JSON.stringify(hits));
      const buf = new Uint8Array(64 + text.length + 2048);
      buf.set(text, 64);
      return buf.subarray(64, 64 + text.length);
    });`,
  );
  const pool = new SearchThreads(lean, 1, null, empty, () => undefined, { reservedLane: false });
  const run = (q: string) => pool.execute(req(q), 0, true);
  const contract = (k: number) => ({ name: 'v1', features: ['bm25f', 'phrase'], rrfPolicy: `rrf_k = ${k}`, vectorCombiner: { name: 'max', topK: null }, sparseQuery: { maxQueryDims: 32 } });
  try {
    const seen: SearchExecution[] = [];
    for (const q of ['abc', 'next', 'rrf60', 'rrf60', 'none', 'abc', 'passages', 'abc']) seen.push(await run(q));
    for (const [i, q] of ['abc', 'next', 'rrf60', 'rrf60', 'none', 'abc', 'passages', 'abc'].entries()) {
      const r = seen[i]!;
      assert.ok(r.queueUs >= 0);
      assert.equal(Buffer.from(r.encodedHits!.bytes).toString('utf8'), '[{"id":"w1"},{"id":"w2"}]');
      // the bytes moved in their own buffer, room and all (the route writes the envelope there)
      assert.equal(r.encodedHits!.bytes.byteOffset, 64);
      assert.equal(r.encodedHits!.bytes.buffer.byteLength, 64 + r.encodedHits!.bytes.byteLength + 2048);
      assert.deepEqual({ ...r, queueUs: 0, encodedHits: { bytes: null, ids: r.encodedHits!.ids } }, {
        rankingMode: q === 'passages' ? 'passages' : 'documents',
        hits: [],
        totalHits: q.length,
        hasNext: q === 'next',
        correctedQuery: q === 'next' ? 'nxt' : null,
        embedMs: q === 'passages' ? 3 : null,
        traces: q === 'passages' ? [{ branch: 'bm25f', hits: [] }] : null,
        engineUs: 11,
        recordsUs: 22,
        snippetsUs: 33,
        queueUs: 0,
        candidateRanking: q === 'none' ? null : { method: 'rrf', contract: contract(q === 'rrf60' ? 60 : 20), l2: null, modelSha256: null },
        rankingStages: q === 'next' ? [{ stage: 'cross', us: 5 }] : [],
        encodedHits: { bytes: null, ids: ['w1', 'w2'] },
      });
    }
    // an unchanged ranking is the one kept (frozen, so no response can change another's); a changed one is new
    assert.equal(seen[0]!.candidateRanking, seen[1]!.candidateRanking);
    assert.notEqual(seen[1]!.candidateRanking, seen[2]!.candidateRanking);
    assert.equal(seen[2]!.candidateRanking, seen[3]!.candidateRanking);
    assert.ok(Object.isFrozen(seen[0]!.candidateRanking) && Object.isFrozen(seen[0]!.candidateRanking!.contract.features));
    assert.equal(pool.inflight, 0);
  } finally {
    await pool.close();
  }
});
