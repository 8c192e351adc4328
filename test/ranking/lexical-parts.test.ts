// The one-pass lexical features (SearchIndex.scoreParts, ADR 0139) equal what the restricted probe
// searches they replace score: per-field BM25, the phrase bonus and the proximity bonus, over several
// segments, with a deleted and an updated document, for word, phrase and multi-word queries.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryIndexDirectory, SearchIndex, type EngineQuery } from '../../src/engine/index.js';
import { probeScores, type LexicalVariant } from '../../src/ranking/sources.js';
import { DOCS } from '../engine/fixtures.js';

function build(): SearchIndex {
  const idx = SearchIndex.open(new MemoryIndexDirectory());
  for (const d of DOCS.slice(0, 3)) idx.add(d);
  idx.commit('1');
  for (const d of DOCS.slice(3)) idx.add(d);
  idx.add({ id: 'f6', title: 'Heat and shock in the body', abstract: 'Shock heat shock heat: the heat shock response.', body: 'Heat shock proteins protect cells from heat. Shock waves are another matter; the heat of a shock.', type: 'review', issuedAt: 1_700_000_000, language: 'en' });
  idx.commit('2');
  // an update (the old version deleted in segment 1) and a deletion
  idx.add({ ...DOCS[2]!, abstract: 'Heat transfer behind a shock wave; heat shock of the gas.' });
  idx.delete('e5');
  idx.commit('3');
  return idx;
}

const close = (a: number, b: number, what: string) => assert.ok(Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b)), `${what}: ${a} vs ${b}`);

test('scoreParts equals the probe searches, part by part', () => {
  const idx = build();
  const ids = ['a1', 'a1-preprint', 'b2', 'c3', 'd4', 'e5', 'f6', 'nope'];
  for (const text of ['heat shock', '"heat shock" proteins', 'shock', 'heat transfer shock', 'il-6 receptor', 'aspirin']) {
    const base: EngineQuery = { text, phraseBoost: 1.5 };
    const parts = idx.scoreParts(base, ids);
    assert.equal(parts.has('e5'), false, 'deleted: absent');
    assert.equal(parts.has('nope'), false, 'unknown: absent');
    const probe = (v: LexicalVariant) => probeScores(idx, base, ids, v);
    const title = probe('title');
    const abstract = probe('abstract');
    const body = probe('body');
    const plain = probe('plain');
    const phrase = probe('phrase');
    const proximity = probe('proximity');
    for (const [id, p] of parts) {
      close(p.fields[0], title.get(id) ?? 0, `${text} ${id} title`);
      close(p.fields[1], abstract.get(id) ?? 0, `${text} ${id} abstract`);
      close(p.fields[2], body.get(id) ?? 0, `${text} ${id} body`);
      close(p.plain, plain.get(id) ?? 0, `${text} ${id} plain`);
      const hasPhrase = text.includes('"');
      if (hasPhrase) close(p.phrase, Math.max(0, (phrase.get(id) ?? 0) - (plain.get(id) ?? 0)), `${text} ${id} phrase`);
      else assert.equal(p.phrase, 0);
      close(p.proximity, Math.max(0, (proximity.get(id) ?? 0) - (plain.get(id) ?? 0)), `${text} ${id} proximity`);
    }
    // documents the probes score are all there
    for (const id of plain.keys()) assert.ok(parts.has(id), `${text}: ${id}`);
  }
  // the parts are not all zero: the test can fail
  const hs = idx.scoreParts({ text: '"heat shock" proteins' }, ['f6', 'b2']);
  assert.ok(hs.get('f6')!.phrase > 0 && hs.get('f6')!.fields[2] > 0 && hs.get('b2')!.fields[1] > 0);
  assert.ok(idx.scoreParts({ text: 'heat shock' }, ['f6']).get('f6')!.proximity > 0);
  idx.close();
});
