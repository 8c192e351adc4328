// Snippets placed from the index (stored token offsets + the query terms' postings) equal the snippets of
// buildSnippet, which analyses the stored text: on the shared corpora (SciFact, Cranfield) for their
// queries and for random queries drawn from the documents, for every passage of every hit, at random
// window sizes; and on hand-made documents with compounds, identifiers, astral characters and other
// languages (where the index path must fall back).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { buildHitSnippet, buildSnippet, MemoryIndexDirectory, SearchIndex, type EngineHit, type FieldName, type IndexDocument, type ParsedQuery } from '../../src/engine/index.js';
import { hitHasTokenOffsets } from '../../src/engine/hit-snippets.js';
import { repoRoot, sharedData } from '../helpers/paths.js';

const irDir = [join(sharedData, 'ir'), join(repoRoot, '..', '..', 'shared', 'data', 'ir')].find((d) => existsSync(d)) ?? null;

function readJsonl<T>(path: string): T[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim().length > 0)
    .map((l) => JSON.parse(l) as T);
}

function textOf(d: IndexDocument, f: FieldName): string {
  return (f === 'title' ? d.title : f === 'abstract' ? d.abstract : d.body) ?? '';
}

/** Compares both paths for every passage of every hit, and the whole-field window of each field. */
function compareHits(idx: SearchIndex, byId: Map<string, IndexDocument>, hits: EngineHit[], parsed: ParsedQuery, maxChars: number): number {
  let n = 0;
  for (const hit of hits) {
    assert.ok(hitHasTokenOffsets(hit));
    const doc = byId.get(hit.id)!;
    for (const p of hit.passages) {
      const text = textOf(doc, p.field);
      const opts = { field: p.field, passage: p, maxChars, language: doc.language ?? null };
      assert.deepEqual(buildHitSnippet(hit, text, parsed, opts), buildSnippet(text, parsed, opts), `${hit.id} ${p.field} chunk ${p.chunkId}`);
      n++;
    }
    for (const field of ['title', 'abstract', 'body'] as FieldName[]) {
      const text = textOf(doc, field);
      if (!text) continue;
      const opts = { field, maxChars, language: doc.language ?? null };
      assert.deepEqual(buildHitSnippet(hit, text, parsed, opts), buildSnippet(text, parsed, opts), `${hit.id} ${field} whole field`);
      n++;
    }
  }
  void idx;
  return n;
}

for (const name of ['scifact', 'cranfield']) {
  test(`index-placed snippets equal analysed snippets on ${name}`, { skip: irDir === null ? 'shared IR data not found' : false }, () => {
    const raw = readJsonl<{ _id: string; title: string; text: string }>(join(irDir!, name, 'corpus.jsonl'));
    // title + text as abstract; every third document also carries the text as body (a longer third field)
    const docs: IndexDocument[] = raw.map((r, i) => ({ id: r._id, title: r.title, abstract: r.text, body: i % 3 === 0 ? `${r.text}\n\n${r.title}` : null, language: 'en' }));
    const byId = new Map(docs.map((d) => [d.id, d]));
    const idx = SearchIndex.open(new MemoryIndexDirectory());
    docs.forEach((d, i) => {
      idx.add(d);
      if (i % 2000 === 1999) idx.commit(String(i));
    });
    idx.commit('end');
    const queries = readJsonl<{ _id: string; text: string }>(join(irDir!, name, 'queries.jsonl')).map((q) => q.text);
    let compared = 0;
    // every query of the collection, default window
    for (const text of queries) {
      const r = idx.search({ text, limit: 10, passagesPerHit: 3 });
      compared += compareHits(idx, byId, r.hits, idx.parse(text), 300);
    }
    // random queries from the documents' own words (quoted phrases, compounds, numbers), random windows
    const words = raw.slice(0, 400).flatMap((r) => r.text.split(/\s+/).filter((w) => w.length > 0));
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: words.length - 1 }), { minLength: 1, maxLength: 4 }), fc.boolean(), fc.integer({ min: 20, max: 600 }), (picks, quote, maxChars) => {
        const ws = picks.map((i) => words[i]!.replace(/["“”«»]/g, ''));
        const text = quote ? `"${words.slice(picks[0]!, picks[0]! + 2).join(' ').replace(/["“”«»]/g, '')}" ${ws.slice(1).join(' ')}` : ws.join(' ');
        const r = idx.search({ text, limit: 5, passagesPerHit: 3 });
        compared += compareHits(idx, byId, r.hits, idx.parse(text), maxChars);
      }),
      { numRuns: 150 },
    );
    // merged into one segment: the offsets travel with the documents
    idx.forceMerge(1);
    for (const text of queries.slice(0, 100)) {
      const r = idx.search({ text, limit: 10 });
      compared += compareHits(idx, byId, r.hits, idx.parse(text), 200);
    }
    assert.ok(compared > 1000, `only ${compared} snippets compared`);
    idx.close();
  });
}

test('index-placed snippets: compounds, identifiers, astral text; fallbacks where the index cannot answer', () => {
  const docs: IndexDocument[] = [
    { id: 'c1', title: 'TNF-alpha and IL-6 signalling', abstract: 'TNF-alpha, IL-6 and CTLA4 (CTLA-4) regulate HIF-1α; the IL6 receptor binds. Non-small-cell lung cancer cells’ growth.', language: 'en' },
    { id: 'c2', title: '😀 Astral 𝛂 title', abstract: '😀 Intro 𝛂. The IL-6 receptor binds 😀 ligand strongly in cells. 3.5 mg/kg of drug’s dose.', language: 'en' },
    { id: 'c3', title: 'Häuser und Hitzeschock', abstract: 'Die Häuser wurden untersucht. Hitzeschockproteine in Zellen.', language: 'de' },
  ];
  const byId = new Map(docs.map((d) => [d.id, d]));
  const idx = SearchIndex.open(new MemoryIndexDirectory());
  for (const d of docs) idx.add(d);
  idx.commit('1');
  for (const text of ['tnfalpha', 'TNF-alpha', 'IL6 receptor', 'il-6', 'ctla4', 'CTLA-4 cells', 'hif1a', 'HIF-1α', 'non-small-cell', 'nonsmallcel', '"IL-6 receptor"', 'ligand 3.5 drug', 'astral 𝛂', 'cancer cells growth']) {
    const r = idx.search({ text, limit: 10 });
    compareHits(idx, byId, r.hits, idx.parse(text), 40);
    compareHits(idx, byId, r.hits, idx.parse(text), 300);
  }
  // German document with German query: the index answers; with ['en', 'de'] both paths still agree (fallback)
  for (const langs of [['de'], ['en', 'de']]) {
    const r = idx.search({ text: 'Häuser', possibleLanguages: langs, limit: 10 });
    assert.ok(r.hits.length > 0);
    compareHits(idx, byId, r.hits, idx.parse('Häuser', langs), 300);
  }
  // a hit that did not come from a search, and text that changed since indexing: analysed as before
  const parsed = idx.parse('receptor');
  const fake: EngineHit = { id: 'c2', score: 1, passages: [], workKey: null };
  assert.deepEqual(buildHitSnippet(fake, docs[1]!.abstract!, parsed, { field: 'abstract' }), buildSnippet(docs[1]!.abstract!, parsed, { field: 'abstract' }));
  const hit = idx.search({ text: 'receptor', limit: 10 }).hits.find((h) => h.id === 'c2')!;
  const changed = 'A different abstract about the receptor now.';
  assert.deepEqual(buildHitSnippet(hit, changed, parsed, { field: 'abstract' }), buildSnippet(changed, parsed, { field: 'abstract' }));
  assert.deepEqual(buildHitSnippet(hit, changed, parsed, { field: 'abstract' }).highlights.map((h) => changed.slice(h.start, h.end)), ['receptor']);
  idx.close();
});
