// Retrieval channels beyond words through the app (issue 15): before and after `models train`, every
// search mode, hybrid fusion with exact votes and the trace naming channels, sparse parameters,
// embed_ms, similar documents (POST /v2/search/similar), billing, and incremental training.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, type TestApp } from '../helpers/app.js';
import type { ConfigInput } from '../../src/config/index.js';
import { doc, seed } from '../helpers/documents.js';

const heart = ['Heart attack outcomes in adults', 'Myocardial infarction after surgery', 'Cardiac arrest and heart failure', 'Coronary artery disease and myocardial damage'];
const heartAbs = ['Myocardial infarction (heart attack) follows coronary occlusion; cardiac troponin rises.', 'Patients with heart failure after myocardial infarction; coronary reperfusion and cardiac outcomes.'];
const rock = ['Sandstone porosity', 'Reservoir rock permeability', 'Sediment and sandstone diagenesis', 'Porous rock reservoir pressure'];
const rockAbs = ['Sandstone porosity and permeability of reservoir rock; sediment compaction.', 'Diagenesis of sediment reduces porosity; reservoir rock pressure and permeability.'];
const docs = Array.from({ length: 80 }, (_, i) => {
  const h = i % 2 === 0;
  return doc(`c${i}`, { title: `${(h ? heart : rock)[(i >> 1) % 4]} ${i}`, abstract: `${(h ? heartAbs : rockAbs)[(i >> 3) % 2]} Study ${i}.`, type: i % 4 === 0 ? 'review' : 'journal-article', language: i % 5 === 0 ? 'de' : 'en' });
});

describe('retrieval channels (sparse, short_document, binary, hybrid) and similar documents', () => {
  let app: TestApp;
  let acct: { id: number; key: string };
  before(async () => {
    // a small ranking pool (10), so the channels' lists differ and backfill has cells to fill
    app = await testApp({ ranking: { candidateDepth: 10 } as ConfigInput['ranking'] });
    acct = await app.account({ credits: 100_000 });
    await seed(app, docs);
    await app.indexes!.catchUp();
  });
  after(() => app.dispose());

  const post = async (url: string, body: Record<string, unknown>) => {
    const res = await app.http.inject({ method: 'POST', url, headers: { 'x-api-key': acct.key }, payload: body });
    return { status: res.statusCode, body: res.json(), headers: res.headers };
  };
  const search = (body: Record<string, unknown>) => post('/v2/search/', body);
  const similar = (body: Record<string, unknown>) => post('/v2/search/similar', body);

  test('before training: model modes and similar documents answer 422 naming the missing model; hybrid names the unconfigured channels', async () => {
    for (const mode of ['sparse', 'short_document', 'binary']) {
      const r = await search({ query: 'heart', mode });
      assert.equal(r.status, 422);
      assert.equal(r.body.detail.code, 'feature_unavailable');
      assert.match(r.body.detail.message ?? JSON.stringify(r.body.detail), /models train/);
    }
    const s = await similar({ document_id: 'c0' });
    assert.equal(s.status, 422);
    assert.ok(s.headers['x-request-id']);
    const h = await search({ query: 'heart', tracing: true });
    assert.equal(h.status, 200);
    assert.equal(h.body.embed_ms, null);
    const fusion = h.body.retrieval_traces.find((t: { branch: string }) => t.branch === 'fusion');
    assert.deepEqual(fusion.channels, ['fulltext']);
    assert.equal(fusion.unconfigured.length, 2);
    assert.match(fusion.unconfigured.join(' '), /sparse:documents.*short_document:documents/);
  });

  test('models train: trained, installed, persisted with SHA-256; a second run is incremental', async () => {
    const r = await app.corpusModels.train('documents');
    assert.equal(r.documents, 80);
    assert.equal(r.resumed, false);
    assert.match(r.manifest!.dense.sha256, /^[0-9a-f]{64}$/);
    assert.deepEqual(app.refreshModels(), ['documents']);
    assert.equal(app.indexes!.get('documents').vectorStatus().documentsWithVectors, 80);
    const again = await app.corpusModels.train('documents');
    assert.equal(again.resumed, true);
    assert.equal(again.changes, 0);
    assert.equal(again.skipped, 'models are up to date');
    assert.deepEqual(app.refreshModels(), [], 'same manifest: nothing reinstalled');
  });

  test('every mode answers; hybrid fuses fulltext, sparse and short_document with exact weighted votes', async () => {
    for (const mode of ['fulltext', 'sparse', 'short_document', 'binary', 'hybrid']) {
      const r = await search({ query: 'heart attack', mode, limit: 5 });
      assert.equal(r.status, 200, mode);
      assert.equal(r.body.hits.length, 5, mode);
      if (mode !== 'fulltext') assert.equal(typeof r.body.embed_ms, 'number', mode);
      // every mode finds cardiology, not geology
      assert.ok(r.body.hits.every((h: { id: string }) => Number(h.id.slice(1)) % 2 === 0), `${mode}: ${JSON.stringify(r.body.hits.map((h: { id: string }) => h.id))}`);
    }
    const h = await search({ query: 'heart attack', limit: 10, include_rrf_scores: true, tracing: true, rrf_k: 20 });
    const fusion = h.body.retrieval_traces.find((t: { branch: string }) => t.branch === 'fusion');
    assert.deepEqual(fusion.channels, ['fulltext', 'sparse', 'short_document']);
    assert.deepEqual(fusion.unconfigured, []);
    const channels = new Set<string>();
    for (const hit of h.body.hits) {
      let sum = 0;
      for (const c of hit.rrf.contributions) {
        channels.add(c.channel);
        assert.ok(Math.abs(c.contribution - c.weight / (20 + c.rank)) < 1e-12);
        sum += c.contribution;
      }
      assert.ok(Math.abs(sum - hit.rrf.score) < 1e-12);
      assert.ok(Math.abs(hit.score - hit.rrf.score) < 1e-12);
    }
    assert.ok(channels.has('short_document') && channels.has('fulltext'));
    const sparseTrace = h.body.retrieval_traces.find((t: { branch: string }) => t.branch === 'sparse');
    assert.match(sparseTrace.model_sha256, /^[0-9a-f]{64}$/);
    assert.equal(sparseTrace.nominates, false, 'sparse_nomination defaults to off for whole-document ranking');
  });

  test('vocabulary mismatch: a query in words no document uses verbatim still finds the related documents through sparse and dense', async () => {
    // "infarction" appears only with "myocardial"; "troponin" only in one abstract: the dense channel relates them
    const f = await search({ query: 'troponin', mode: 'fulltext', limit: 40 });
    const d = await search({ query: 'troponin', mode: 'short_document', limit: 30 });
    const n = (h: { id: string }) => Number(h.id.slice(1));
    // fulltext: only abstracts with the word; dense: cardiology documents whose text never says it too
    assert.ok(f.body.hits.every((h: { id: string }) => ((n(h) >> 3) & 1) === 0));
    assert.ok(d.body.hits.slice(0, 30).some((h: { id: string }) => n(h) % 2 === 0 && ((n(h) >> 3) & 1) === 1));
    assert.ok(d.body.hits.slice(0, 20).every((h: { id: string }) => n(h) % 2 === 0));
  });

  test('sparse parameters: max_query_dims bounds the vector, weight_threshold and pruning drop generated terms', async () => {
    const dimsOf = async (extra: Record<string, unknown>) => {
      const r = await search({ query: 'heart attack', mode: 'sparse', tracing: true, ...extra });
      assert.equal(r.status, 200);
      return r.body.retrieval_traces.find((t: { branch: string }) => t.branch === 'sparse').dims as { term: string; weight: number; generated: boolean }[];
    };
    const all = await dimsOf({ heap_factor: 1 });
    assert.ok(all.filter((x) => x.generated).length > 0);
    assert.equal((await dimsOf({ max_query_dims: 3 })).length, 3);
    assert.equal((await dimsOf({ max_query_dims: 2 })).filter((x) => x.generated).length, 0);
    assert.equal((await dimsOf({ weight_threshold: 1 })).filter((x) => x.generated).length, 0);
    const pruned = await dimsOf({ pruning: 0.99 });
    assert.equal(pruned.filter((x) => x.generated).length, 1, 'only the strongest generated term survives relative pruning of 0.99');
    assert.equal((await search({ query: 'heart', mode: 'hybrid', sparse_nomination: true })).status, 200);
  });

  test('multi-query (ADR 0107): the sparse trace lists the sub-queries; combiner, decay and top_k change the scores', async () => {
    const run = async (extra: Record<string, unknown>) => {
      const r = await search({ query: 'heart attack', mode: 'sparse', tracing: true, limit: 20, ...extra });
      assert.equal(r.status, 200);
      return { hits: r.body.hits as { id: string; score: number }[], t: r.body.retrieval_traces.find((x: { branch: string }) => x.branch === 'sparse') };
    };
    const d = await run({});
    assert.equal(d.t.sub_queries[0].sub_query, 'query');
    assert.equal(d.t.sub_queries.length, 1 + d.t.dims.filter((x: { generated: boolean }) => x.generated).length);
    assert.ok(d.t.sub_queries.length > 1);
    assert.deepEqual(d.t.combiner, { name: 'log_sum_exp', decay: 0.7, temperature: 1.5, top_k: 3 });
    const sum = await run({ combiner: 'sum', combiner_decay: 1, combiner_top_k: 0 });
    const max = await run({ combiner: 'max', combiner_top_k: 1 });
    const top = sum.hits[0]!;
    const inMax = max.hits.find((h) => h.id === top.id)!;
    assert.ok(top.score > inMax.score, 'sum adds the sub-queries a document matches, max keeps the best');
    assert.ok(inMax.score <= 1 + 1e-9, 'scaled scores: max is at most 1');
  });

  test('similar documents: nearest by content, without the source; filters, limit 1..100, 404, billed like a search', async () => {
    const before = await app.storage.ledger.balance(acct.id);
    const r = await similar({ document_id: 'c2', limit: 5 });
    assert.equal(r.status, 200);
    assert.equal(r.body.hits.length, 5);
    assert.ok(!r.body.hits.some((h: { id: string }) => h.id === 'c2'));
    assert.ok(r.body.hits.every((h: { id: string }) => Number(h.id.slice(1)) % 2 === 0), 'cardiology is similar to cardiology');
    assert.ok(r.body.hits[0].document.title);
    assert.equal(before - (await app.storage.ledger.balance(acct.id)), 10 + 5);
    const reviews = await similar({ document_id: 'c2', filter_types: ['review'], filter_languages: ['en'], limit: 100 });
    assert.ok(reviews.body.hits.length > 0);
    assert.ok(reviews.body.hits.every((h: { id: string; document: { type: string; language: string } }) => h.document.type === 'review' && h.document.language === 'en'));
    const missing = await similar({ document_id: 'nope' });
    assert.equal(missing.status, 404);
    assert.equal(missing.body.detail.code ?? missing.body.detail, missing.body.detail.code ? 'not_found' : missing.body.detail);
    for (const bad of [{ document_id: 'c2', limit: 0 }, { document_id: 'c2', limit: 101 }, { limit: 5 }, { document_id: 'c2', bogus: 1 }, { document_id: 'c2', filter_types: [] }]) {
      assert.equal((await similar(bad)).status, 422, JSON.stringify(bad));
    }
    assert.equal(await app.storage.ledger.balance(acct.id), before - 15 - (10 + reviews.body.hits.length), 'failures are not charged');
  });

  test('a document added after training gets a vector at the next commit; retraining folds it in incrementally', async () => {
    await seed(app, [doc('new1', { title: 'Myocardial infarction in the elderly', abstract: 'Heart attack and coronary outcomes in the elderly; cardiac troponin.' })]);
    await app.indexes!.catchUp();
    assert.ok(app.indexes!.get('documents').documentVector('new1'));
    // the 40 cardiology documents are near-duplicates (ties among them are arbitrary): the new one must
    // rank with them, above every geology document (odd ids)
    const r = await search({ query: 'coronary elderly', mode: 'short_document', limit: 81 });
    const ids = (r.body.hits as { id: string }[]).map((h) => h.id);
    const at = ids.indexOf('new1');
    assert.ok(at >= 0, JSON.stringify(ids));
    assert.ok(ids.slice(0, at).every((id) => Number(id.slice(1)) % 2 === 0), JSON.stringify(ids.slice(0, at + 1)));
    const t = await app.corpusModels.train('documents');
    assert.equal(t.resumed, true);
    assert.equal(t.changes, 1);
    assert.equal(t.documents, 81);
    assert.deepEqual(app.refreshModels(), ['documents']);
    assert.equal(app.indexes!.get('documents').vectorStatus().documentsWithVectors, 81);
  });

  test('ranking over the channels: branch features of the channels that ran; backfill fills only the missing cells', async () => {
    const body = { query: 'heart attack', limit: 10, include_candidate_scores: true };
    type H = { id: string; candidate_scores: { document: Record<string, number> } };
    const plain = await search({ ...body, l1: { formula: 'fulltext + 10 * short_document + sparse' } });
    assert.equal(plain.status, 200, JSON.stringify(plain.body));
    const missing = (plain.body.hits as H[]).filter((h) => h.candidate_scores.document['short_document'] === undefined || h.candidate_scores.document['fulltext'] === undefined);
    assert.ok(missing.length > 0, 'some candidates were nominated by one channel only');
    const filled = await search({ ...body, l1: { formula: 'fulltext + 10 * short_document + sparse', backfill: true } });
    assert.equal(filled.body.candidate_ranking.contract.backfill, true);
    const byId = new Map((filled.body.hits as H[]).map((h) => [h.id, h.candidate_scores.document]));
    for (const h of plain.body.hits as H[]) {
      const after = byId.get(h.id);
      if (!after) continue;
      for (const f of ['fulltext', 'short_document', 'sparse']) {
        // an observed cell is kept as observed; a missing one is probed (its rank stays absent)
        if (h.candidate_scores.document[f] !== undefined) assert.equal(after[f], h.candidate_scores.document[f], `${h.id} ${f}`);
        if (h.candidate_scores.document[`${f}_rank`] === undefined) assert.equal(after[`${f}_rank`], undefined);
      }
      if (h.candidate_scores.document['short_document'] === undefined) assert.equal(typeof after['short_document'], 'number', `${h.id} short_document backfilled`);
    }
    // binary is not a hybrid branch: a formula reading it is refused
    const r = await search({ query: 'heart', l1: { formula: 'binary' } });
    assert.equal(r.status, 422);
    assert.deepEqual(r.body.detail.absent_branches, ['binary']);
  });
});
