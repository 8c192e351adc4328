// The content tokenizer behind max_tokens and document billing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { codePointLength, countContentTokens, cutToCodePoints, cutToTokens } from '../../src/domain/content-tokens.js';

test('a token cut returns exactly min(N, total) tokens and is a prefix', () => {
  fc.assert(
    fc.property(fc.string({ unit: 'grapheme', maxLength: 300 }), fc.integer({ min: 0, max: 400 }), (text, n) => {
      const r = cutToTokens(text, n);
      assert.ok(text.startsWith(r.text));
      assert.equal(r.tokens, Math.min(n, countContentTokens(text)));
      assert.equal(countContentTokens(r.text), r.tokens);
    }),
  );
});

test('a character cut returns min(N, length) code points and never splits a pair', () => {
  fc.assert(
    fc.property(fc.string({ unit: 'binary', maxLength: 200 }), fc.integer({ min: 0, max: 250 }), (text, n) => {
      const cut = cutToCodePoints(text, n);
      assert.ok(text.startsWith(cut));
      assert.equal(codePointLength(cut), Math.min(n, codePointLength(text)));
      assert.equal([...cut].length, codePointLength(cut));
    }),
  );
});

test('examples from docs/api.md', () => {
  assert.equal(countContentTokens("Léa's 2.5-mm"), 8);
  assert.equal(countContentTokens('  \n\t '), 0);
  assert.equal(cutToTokens('CO₂ storage, in situ.', 3).text, 'CO₂ storage,');
});
