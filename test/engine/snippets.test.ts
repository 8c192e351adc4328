import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildSnippet, parseQuery, sliceCodePoints, codePointLength } from '../../src/engine/index.js';

test('snippet offsets and highlights are code points, exclusive ends, even with astral characters', () => {
  const text = '😀 Intro 𝛂. The IL-6 receptor binds 😀 ligand strongly in cells.';
  const q = parseQuery('receptor ligand', null, 'en');
  const s = buildSnippet(text, q, { field: 'abstract', maxChars: 30 });
  assert.equal(s.source.fieldLength, codePointLength(text));
  assert.equal(sliceCodePoints(text, s.source.startChar, s.source.endChar), s.text);
  assert.ok(codePointLength(s.text) <= 30);
  const marked = s.highlights.map((h) => sliceCodePoints(s.text, h.start, h.end));
  assert.deepEqual(marked, ['receptor', 'ligand']);
  for (const h of s.sourceHighlights) assert.match(sliceCodePoints(text, h.start, h.end), /receptor|ligand/);
});

test('a passage bounds the window; no match falls back to the passage start', () => {
  const text = 'First sentence about heat. Second sentence about shock waves and heat transfer.';
  const q = parseQuery('shock', null, 'en');
  const passage = { chunkId: 1, field: 'abstract' as const, startChar: 27, endChar: codePointLength(text), fieldLength: codePointLength(text), score: 1 };
  const s = buildSnippet(text, q, { field: 'abstract', passage, maxChars: 200 });
  assert.equal(s.chunkId, 1);
  assert.ok(s.source.startChar >= 27);
  assert.deepEqual(s.highlights.map((h) => s.text.slice(h.start, h.end)), ['shock']);
  const none = buildSnippet(text, parseQuery('zebra', null, 'en'), { field: 'abstract', maxChars: 20 });
  assert.equal(none.source.startChar, 0);
  assert.equal(none.highlights.length, 0);
});
