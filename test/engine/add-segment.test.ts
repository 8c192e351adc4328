// SearchIndex.addSegment (ADR 0111): a segment built elsewhere (buildSegments, as the builder thread
// does) and adopted gives the same index as adding the documents here, and replaces older versions.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryIndexDirectory, SearchIndex, type IndexDocument } from '../../src/engine/index.js';
import { buildSegments } from '../../src/search/segment-builder.js';

const d = (id: string, title: string, abstract: string, issuedAt: number | null = null): IndexDocument => ({ id, title, abstract, body: null, language: 'en', type: 'article', issuedAt, publisher: null, issns: [], uris: [], references: [], workKey: null });
const first = [d('a', 'Hydrogen storage in salt caverns', 'Cushion gas and caverns.', 0), d('b', 'Sandstone porosity', 'Porosity and permeability.', 100), d('c', 'Gas storage economics', 'Hydrogen blending.', 200)];
const second = [d('b', 'Sandstone porosity revised', 'Hydrogen flow in sandstone.', 300), d('e', 'Salt domes', 'Leaching caverns in salt for hydrogen.', 400)];
const queries = ['hydrogen', 'salt caverns', 'sandstone', '"salt caverns"', 'revised', 'porosity permeability'];
const answers = (idx: SearchIndex) => queries.map((text) => idx.search({ text, limit: 10 }).hits.map((h) => [h.id, h.score]));

test('adopting built segments equals adding the documents, and replaces older versions', () => {
  const added = SearchIndex.open(new MemoryIndexDirectory(), { defaultLanguage: 'en' });
  for (const x of first) added.add(x);
  added.commit('1');
  for (const x of second) added.add(x);
  added.delete('c');
  added.commit('2');

  const adopted = SearchIndex.open(new MemoryIndexDirectory(), { defaultLanguage: 'en' });
  for (const s of buildSegments(first)) adopted.addSegment(s);
  adopted.commit('1');
  adopted.delete('c');
  for (const s of buildSegments(second)) adopted.addSegment(s);
  adopted.commit('2');

  assert.deepEqual(answers(adopted), answers(added));
  assert.equal(adopted.stats().docs, 3, 'a, b (new version), e');
  assert.deepEqual(adopted.search({ text: 'sandstone', limit: 10 }).hits.map((h) => h.id), ['b']);
  assert.equal(adopted.search({ text: 'permeability', limit: 10 }).hits.length, 0, 'the old version of b is gone');
});

test('a segment whose ids the caller deleted first (idsDeleted) gives the same index', () => {
  const looked = SearchIndex.open(new MemoryIndexDirectory(), { defaultLanguage: 'en' });
  const deleted = SearchIndex.open(new MemoryIndexDirectory(), { defaultLanguage: 'en' });
  for (const idx of [looked, deleted]) {
    for (const s of buildSegments(first)) idx.addSegment(s);
    idx.commit('1');
  }
  for (const s of buildSegments(second)) looked.addSegment(s);
  for (const x of second) deleted.delete(x.id);
  for (const s of buildSegments(second)) deleted.addSegment(s, undefined, undefined, true);
  looked.commit('2');
  deleted.commit('2');
  assert.deepEqual(answers(deleted), answers(looked));
  assert.equal(deleted.stats().docs, 4);
  assert.equal(deleted.search({ text: 'permeability', limit: 10 }).hits.length, 0, 'the old version of b is gone');
});
