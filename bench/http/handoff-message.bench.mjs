// What a lean hand-off would save (ADR 0359, measured and not built): the CPU of one search thread ->
// main thread message as sent before ADR 0378 (`full`: the execution result with its ranking contract,
// structured-cloned, the hit bytes transferred) against a lean one (the bytes, the ids, a few numbers) and
// the flat array of ADR 0378 (`flat`: the ranking sent once, then a marker), both threads
// together (process CPU per message); and the main thread's envelope work today (fast-json-stringify of
// the V2SearchResponse with an empty hits array, the splice of the hit bytes).
//   node bench/http/handoff-message.bench.mjs RESPONSE.json   (a real /v2/search/ response body; needs dist/)
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { readFileSync } from 'node:fs';

const file = isMainThread ? process.argv[2] : workerData.file;
if (!file) throw new Error('usage: handoff-message.bench.mjs RESPONSE.json');
const r = JSON.parse(readFileSync(file, 'utf8'));
if (isMainThread) {
  const SerializerSelector = (await import('@fastify/fast-json-stringify-compiler')).default;
  const { ALL_SCHEMAS } = await import('../../dist/src/http/schemas/index.js');
  const { ref } = await import('../../dist/src/http/schemas/common.js');
  const { V2SearchResponse } = await import('../../dist/src/http/schemas/search.js');
  const { spliceEncodedHits } = await import('../../dist/src/http/presenters/search.js');
  const ext = Object.fromEntries(ALL_SCHEMAS.map((s) => [s.$id, s]));
  const ser = SerializerSelector()(ext, {})({ schema: ref(V2SearchResponse), method: 'POST', url: '/v2/search/', httpStatus: '200' });
  const env = { ...r, hits: [] };
  const hits = Buffer.from(JSON.stringify(r.hits));
  const time = (f, n = 20000) => {
    for (let i = 0; i < 2000; i++) f();
    const c = process.cpuUsage();
    for (let i = 0; i < n; i++) f();
    const u = process.cpuUsage(c);
    return +((u.user + u.system) / n).toFixed(2);
  };
  const out = { envelope_serialize_us: time(() => ser(env)), splice_us: time(() => spliceEncodedHits(ser(env), hits)) - 0, messages: [] };
  out.splice_us = +(out.splice_us - out.envelope_serialize_us).toFixed(2);
  const w = new Worker(new URL(import.meta.url), { workerData: { file } });
  for (const mode of ['full', 'lean', 'flat', 'full', 'lean', 'flat', 'full', 'lean', 'flat']) {
    const n = 4000;
    const c0 = process.cpuUsage();
    await new Promise((resolve) => {
      let got = 0;
      let kept = null;
      const f = (m) => {
        // the flat message: the main thread builds the execution and keeps the ranking (as SearchThreads does)
        if (Array.isArray(m)) {
          if (m[13] !== 0) kept = m[13];
          m = { rankingMode: 'documents', hits: [], totalHits: m[4], hasNext: (m[5] & 1) === 1, correctedQuery: m[10], embedMs: m[9], traces: m[11], engineUs: m[6], recordsUs: m[7], snippetsUs: m[8], queueUs: 0, candidateRanking: kept, rankingStages: m[12], encodedHits: { bytes: m[2], ids: m[3] } };
        }
        if (++got === n) {
          w.off('message', f);
          resolve();
        }
      };
      w.on('message', f);
      w.postMessage({ mode, n });
    });
    const u = process.cpuUsage(c0);
    out.messages.push({ mode, cpu_us_per_message: +((u.user + u.system) / n).toFixed(1) });
  }
  await w.terminate();
  console.log(JSON.stringify(out, null, 2));
} else {
  const cr = r.candidate_ranking;
  const k = cr?.contract;
  const cand = cr ? { method: cr.method, contract: { name: k.name, features: k.features, scorePolicy: k.score_policy, rrfPolicy: k.rrf_policy, backfill: k.backfill, candidateDepth: k.candidate_depth, phrasePolicy: k.phrase_policy, tokenizerPolicy: k.tokenizer_policy, documentReduction: k.document_reduction, teacherInput: k.teacher_input, vectorCombiner: k.vector_combiner, sparseQuery: k.sparse_query }, l2: null, modelSha256: null } : null;
  const hits = Buffer.from(JSON.stringify(r.hits));
  const { samePlainData } = await import('../../dist/src/search/search-threads.js');
  let sent;
  parentPort.on('message', ({ mode, n }) => {
    for (let i = 0; i < n; i++) {
      const bytes = new Uint8Array(hits.length);
      bytes.set(hits);
      const ids = r.hits.map((h) => h.id);
      if (mode === 'full') parentPort.postMessage({ kind: 'done', id: i, us: 123.4, result: { rankingMode: r.ranking_mode, hits: [], totalHits: r.total_hits, hasNext: r.has_next, correctedQuery: null, embedMs: null, traces: null, engineUs: 1, recordsUs: 2, snippetsUs: 3, queueUs: 0, candidateRanking: cand, rankingStages: [{ stage: 'rrf', us: 3 }], encodedHits: { bytes, ids } } }, [bytes.buffer]);
      else if (mode === 'flat') {
        // the ranking as the service builds it, a new object every search; compared with the last one sent
        const c = { ...cand, contract: { ...cand.contract, features: [...cand.contract.features], vectorCombiner: { ...cand.contract.vectorCombiner }, sparseQuery: { ...cand.contract.sparseQuery } } };
        const same = i > 0 && samePlainData(c, sent);
        sent = c;
        parentPort.postMessage([i, 123.4, bytes, ids, r.total_hits, r.has_next ? 1 : 0, 1, 2, 3, null, null, null, [{ stage: 'rrf', us: 3 }], same ? 0 : c], [bytes.buffer]);
      } else parentPort.postMessage({ kind: 'done', id: i, us: 123.4, bytes, ids, numbers: [r.total_hits, 1, 2, 3] }, [bytes.buffer]);
    }
  });
}
