// Hits read from the index's stored fields (issue 29, ADR 0280) are the hits read from the database:
// the same wire bodies (V2Hit, documents and snippets) for every query of a corpus with versions of one
// work, a retraction notice and its target, body, abstract and title snippets, non-ASCII text, in both
// indexes; and they follow the store through the index: an update shows the new record once indexed,
// a deletion's hit is gone, a relabel into another work shows the new work id; merges keep them. On a
// cluster's api node the records come from the shards' segments (the fetch phase): the same hits again.
// Body snippets on the stored-records path with `bodySlices` are cut from slices of the text (ADR 0335;
// on a cluster's api node the hits are the shards' and read the whole text, as before): the same snippets
// for multi-byte and astral text, words at the ends of the text, empty and very long bodies, and a record
// changed in the store but not yet in the index (read whole, as before).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { pino } from 'pino';
import { buildCore, type Core } from '../../src/app.js';
import { loadConfig } from '../../src/config/index.js';
import type { DocumentRecord } from '../../src/domain/document.js';
import type { DocumentStore } from '../../src/ports/document-store.js';
import { toWireHit } from '../../src/http/presenters/search.js';
import type { IndexSet } from '../../src/search/index-set.js';
import { SearchService } from '../../src/search/search-service.js';
import { defaultSearchRequest } from '../../src/search/search-types.js';
import { sampleDocument } from '../contract/sample-document.js';
import { INDEX_NAMES, type IndexName } from '../../src/domain/document.js';
import { routingKey, shardOfWork } from '../../src/domain/shard-routing.js';
import { MemoryIndexDirectory, SearchIndex } from '../../src/engine/index.js';
import { toIndexDocument } from '../../src/search/index-set.js';
import { ScatterGather } from '../../src/search/scatter-gather.js';
import { InProcessShardClient, ShardSearcher } from '../../src/search/shard-searcher.js';
import { tempDir } from '../helpers/storage.js';

const BASE = 'https://lectern.example';
const WORDS = ['groundwater', 'aquifer', 'recharge', 'porosity', 'seepage', 'basin', 'salinity', 'karst', 'Grundwasser', 'nappe phréatique', 'μ-CT', 'IL-6'];

function corpus(): DocumentRecord[] {
  const out: DocumentRecord[] = [];
  for (let i = 0; i < 120; i++) {
    const w = (k: number) => WORDS[(i * 7 + k * 3) % WORDS.length]!;
    out.push(
      sampleDocument(`S${i}`, {
        title: `${w(0)} ${w(1)} study ${i}`,
        abstract: `We measured ${w(2)} and ${w(3)} in site ${i}. The ${w(4)} results differ from ${w(5)}.`,
        fullText: i % 3 === 0 ? null : `Introduction. ${`The ${w(1)} of the ${w(6)} was sampled. `.repeat(30)} Conclusion on ${w(0)} ${w(7)}.`,
        references: i % 4 === 0 ? [] : [`doi://10.1234/ref${i % 5}`],
        authors: i % 5 === 0 ? [] : [{ name: `Åsa Ødegård ${i}`, orcid: i % 2 ? '0000-0002-1825-0097' : null }],
        extra: { cited_by_count: i, n: { v: [i, null] } },
        ...(i % 9 === 0 ? { index: 'social' as const, type: 'answer' } : {}),
      }),
    );
  }
  // one work in two versions (a shared DOI), a retraction notice and its target
  out.push(sampleDocument('V1', { title: 'Karst aquifer recharge preprint', uris: ['doi://10.5555/work', 'arxiv://2101.00001'], type: 'preprint' }));
  out.push(sampleDocument('V2', { title: 'Karst aquifer recharge article', uris: ['doi://10.5555/work'] }));
  out.push(sampleDocument('T1', { title: 'Salinity of karst groundwater', uris: ['doi://10.5555/target'] }));
  out.push(sampleDocument('R1', { title: 'Retraction: salinity of karst groundwater', type: 'retraction', noticeKind: 'retraction', relations: [{ kind: 'retraction', uri: 'doi://10.5555/target' }] }));
  // bodies whose snippets are cut from slices of the text (ADR 0335): multi-byte and astral text, query
  // words at the very start and end of the text, an empty body and a very long one
  out.push(sampleDocument('U1', { title: 'Danish field notes', abstract: null, fullText: `Ærøskøbing ${'grundvand og vandløb i 😀 𝛂-zonen, naïve café '.repeat(25)}slutning` }));
  out.push(sampleDocument('U2', { title: 'Astral text', abstract: null, fullText: `slutning ${'地下水 𝛂 astral 😀 seepage '.repeat(60)}Ærøskøbing` }));
  out.push(sampleDocument('U3', { title: 'A long report', abstract: null, fullText: `${'The porosity of the basin was stable. '.repeat(6000)}Final slutning` }));
  out.push(sampleDocument('U4', { title: 'Empty body slutning', abstract: 'An abstract on slutning.', fullText: '' }));
  return out;
}

const QUERIES = ['groundwater', 'aquifer recharge', '"karst aquifer"', 'salinity karst', 'sampled', 'conclusion', 'Grundwasser', 'phréatique', 'μ-CT', 'IL6', 'basin seepage porosity', 'retraction', 'study 17', '', 'slutning', 'Ærøskøbing', 'astral seepage', 'café vandløb', 'stable porosity'];

describe('hits from stored fields equal hits from the database', () => {
  let core: Core;
  let indexes: IndexSet;
  let tmp: { dir: string; remove(): void };
  let fromDb: SearchService;
  let fromIndex: SearchService;
  const reads = { slices: 0, wholeTexts: 0 };
  before(async () => {
    tmp = tempDir();
    core = await buildCore(loadConfig({}, { dataDir: tmp.dir, loadDemoCorpus: false, logLevel: 'silent' }), { logger: pino({ level: 'silent' }) });
    await core.storage.documents.upsertMany(corpus(), 1_700_000_000);
    indexes = await core.openIndexes();
    const deps = { indexes, store: core.works, activity: core.activity, billing: core.billing, prices: core.config.prices, clock: core.clock, secret: 's', report: () => undefined };
    fromDb = new SearchService(deps);
    // the stored-records path's plain store, counting what it reads of the texts
    const plain = core.storage.documents;
    const getTextWindows: DocumentStore['getTextWindows'] = async (wants) => {
      reads.slices += wants.length;
      return plain.getTextWindows(wants);
    };
    const getDisplayMany: DocumentStore['getDisplayMany'] = async (ids, withText = []) => {
      reads.wholeTexts += withText.length;
      return plain.getDisplayMany(ids, withText);
    };
    const counted = new Proxy(plain, {
      get: (target, key) => (key === 'getTextWindows' ? getTextWindows : key === 'getDisplayMany' ? getDisplayMany : ((v: unknown) => (typeof v === 'function' ? v.bind(target) : v))(Reflect.get(target, key))),
    });
    fromIndex = new SearchService({ ...deps, workLinks: core.works, featureStore: counted, bodySlices: true });
  });
  after(async () => {
    await core.close();
    tmp.remove();
  });

  /** The wire hits of a query from both services (and the number of hits with documents). */
  async function both(query: string, extra: Partial<Parameters<typeof defaultSearchRequest>[0]> = {}) {
    const r = defaultSearchRequest({ query, mode: 'fulltext', limit: 50, indexNames: ['documents', 'social'], ...extra });
    const a = await fromDb.execute(r);
    const b = await fromIndex.execute(r);
    return { db: a.hits.map((h) => toWireHit(h, BASE)), index: b.hits.map((h) => toWireHit(h, BASE)) };
  }

  test('the same wire hits for every query, ranking mode and page', async () => {
    let fromSegments = 0;
    const slices = spyTextWindows();
    const stored = SearchIndex.prototype.stored;
    SearchIndex.prototype.stored = function (ids) {
      const r = stored.call(this, ids);
      fromSegments += r.size;
      return r;
    };
    let documents = 0;
    let bodySnippets = 0;
    for (const query of QUERIES) {
      for (const rankingMode of ['documents', 'passages'] as const) {
        for (const deduplicate of [true, false]) {
          const { db, index } = await both(query, { rankingMode, deduplicate, ...(query === '' ? { filters: { types: ['journal-article'] } } : {}) });
          assert.deepEqual(index, db, `${query} (${rankingMode}, deduplicate ${deduplicate})`);
          documents += index.filter((h) => h.document !== null).length;
          bodySnippets += index.filter((h) => h.snippets.some((s) => s.field === 'body')).length;
        }
      }
    }
    SearchIndex.prototype.stored = stored;
    slices.restore();
    assert.ok(documents > 300, `hits compared: ${documents}`);
    // body snippets were cut from slices of the text (the whole text read for none of them)
    assert.ok(slices.hits > 20, `body-snippet hits read by their slices: ${slices.hits}`);
    assert.equal(slices.wholeTexts, 0, 'no whole text read on the stored-records path');
    assert.ok(fromSegments > 100, `records read from the segments: ${fromSegments}`);
    assert.ok(bodySnippets > 20, `hits with body snippets: ${bodySnippets}`);
    // the links are there: versions of the work, the notice on its target and the notice's target
    const karst = (await both('karst', { deduplicate: false })).index;
    const doc = (id: string) => karst.find((h) => h.id === id)?.document;
    assert.deepEqual(
      doc('V2')?.versions.map((v) => v.id),
      ['V1'],
    );
    assert.equal(doc('T1')?.is_retracted, true);
    assert.deepEqual(doc('T1')?.notices.map((n) => n.document_id), ['R1']);
    assert.deepEqual(doc('R1')?.notice_of.map((n) => n.document_id), ['T1']);
  });

  /** Counts, from now on, the body slices the stored-records path reads and the whole texts it reads (its plain store). */
  function spyTextWindows() {
    const start = { ...reads };
    return {
      get hits() {
        return reads.slices - start.slices;
      },
      get wholeTexts() {
        return reads.wholeTexts - start.wholeTexts;
      },
      restore: () => undefined,
    };
  }

  test('a body changed in the store but not yet in the index: its whole text is read, and the hit is the same as from the database', async () => {
    const u1 = corpus().find((d) => d.id === 'U1')!;
    await core.works.upsertMany([sampleDocument('U1', { ...u1, fullText: `${u1.fullText!} and a new sentence on slutning` })], 1_700_000_050);
    const slices = spyTextWindows();
    try {
      for (const query of ['slutning', 'café vandløb']) {
        const { db, index } = await both(query, { deduplicate: false });
        assert.deepEqual(index, db, query);
      }
    } finally {
      slices.restore();
    }
    assert.ok(slices.wholeTexts >= 1, 'the changed record read whole');
    await core.works.upsertMany([u1], 1_700_000_060);
    await indexes.catchUp();
  });

  test('updates, deletions and relabels reach the hits through the index; merges keep the records', async () => {
    await core.storage.documents.upsertMany([sampleDocument('S1', { ...corpus()[1]!, title: 'Groundwater renamed study one', abstract: 'A new abstract.' })], 1_700_000_100);
    await core.storage.documents.delete('S2', 1_700_000_100);
    // S4 joins V1/V2's work (it now carries their DOI): relabelled, and the work gains a version
    await core.storage.documents.upsertMany([sampleDocument('S4', { ...corpus()[4]!, uris: ['doi://10.1234/s4', 'doi://10.5555/work'] })], 1_700_000_100);
    await indexes.catchUp();
    for (const query of ['groundwater', 'renamed', 'karst aquifer', 'aquifer recharge']) {
      const { db, index } = await both(query, { deduplicate: false });
      assert.deepEqual(index, db, query);
    }
    const renamed = (await both('renamed')).index;
    assert.equal(renamed[0]?.document?.title, 'Groundwater renamed study one');
    assert.equal(indexes.get('documents').stored(['S2']).size, 0, 'a deleted record is gone from the index');
    const s4 = (await both('karst aquifer', { deduplicate: false })).index.find((h) => h.id === 'V1')?.document;
    assert.deepEqual(s4?.versions.map((v) => v.id).sort(), ['S4', 'V2']);
    for (const name of ['documents', 'social'] as const) indexes.get(name).forceMerge(1);
    for (const query of QUERIES.slice(0, 6)) {
      const { db, index } = await both(query);
      assert.deepEqual(index, db, `${query} after merging`);
    }
  });

  test('a cluster api node: hits with the records the shards store (fetch phase) equal hits with records from the database', async () => {
    // two shards of the store's live records, routed by work as the cluster routes them
    const shards = [0, 1].map(() => new Map<IndexName, SearchIndex>(INDEX_NAMES.map((n) => [n, SearchIndex.open(new MemoryIndexDirectory())])));
    for (const change of await core.storage.documents.changesSince(0, 100_000)) {
      if (change.deleted) continue;
      const d = change.doc;
      shards[shardOfWork(routingKey(d), 2)]!.get(d.index)!.add(toIndexDocument(d));
    }
    for (const s of shards) for (const idx of s.values()) idx.commit('1');
    const clients = shards.map((s, i) => new InProcessShardClient(new ShardSearcher(i, { get: (n) => s.get(n)! })));
    let fetched0 = 0;
    const sg = new ScatterGather({ shards: 2, replicas: (s) => [clients[s]!] });
    const records = sg.records.bind(sg);
    sg.records = async (index, ids) => {
      const r = await records(index, ids);
      fetched0 += r.size;
      return r;
    };
    // a fulltext page's records come with the shards' answers (the fetch folded into the query phase, ADR 0292)
    const search = sg.search.bind(sg);
    sg.search = async (index, q, opts) => {
      const r = await search(index, q, opts);
      fetched0 += r.fetched?.records.size ?? 0;
      return r;
    };
    const deps = { indexes, store: core.works, activity: core.activity, billing: core.billing, prices: core.config.prices, clock: core.clock, secret: 's', report: () => undefined, shards: sg };
    const db = new SearchService(deps);
    const fetched = new SearchService({ ...deps, workLinks: core.works, featureStore: core.storage.documents, bodySlices: true });
    let compared = 0;
    for (const query of QUERIES.slice(0, 10)) {
      const r = defaultSearchRequest({ query, mode: 'fulltext', limit: 30, indexNames: ['documents', 'social'], deduplicate: false });
      const a = (await db.execute(r)).hits.map((h) => toWireHit(h, BASE));
      const b = (await fetched.execute(r)).hits.map((h) => toWireHit(h, BASE));
      assert.deepEqual(b, a, query);
      compared += b.filter((h) => h.document !== null).length;
    }
    assert.ok(compared > 100, `hits compared: ${compared}`);
    // hits with title and abstract snippets take their records from the shards, with their answers or by a
    // records call (body-snippet hits read theirs with the text)
    assert.ok(fetched0 >= 20, `records fetched from the shards: ${fetched0}`);
  });
});
