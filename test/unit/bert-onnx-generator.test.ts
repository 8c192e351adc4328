// The real-size encoder generator (bench/models/build-bert-onnx.ts, ADR 0285) at a small size (2 layers,
// 64 wide, 4 heads): its WordPiece vocabulary and tokenizer.json load in Lectern's encoder path; its
// ONNX graph computes BERT (checked against a forward pass written here in plain arithmetic); padding
// does not change a pooled vector, and a build without the attention mask shows that check can fail.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ort from 'onnxruntime-node';
import { loadOnnxTextEncoder } from '../../src/adapters/onnx/onnx-text-encoder.js';
import { bertParameters, learnWordPieceVocab, MINILM_L6_SHAPE, SPECIAL_TOKENS, wordCounts, writeBertEncoder, type BertShape, type BertWeights } from '../../bench/models/build-bert-onnx.js';

const TEXTS = [
  'Myocardial infarction is a heart attack; the heart muscle is damaged.',
  'Heart attacks and heart failure: treatment of myocardial damage in older patients.',
  'Attention masks keep padding out of the pooled vector of a sentence.',
  'Cancer cells and tumour growth, cancer therapy, and the cell cycle.',
  'The patients were treated; treatment outcomes of heart patients improved.',
];
const SMALL = { layers: 2, hidden: 64, heads: 4, ffn: 128, maxPositions: 64, typeVocab: 2 };

function tempDir(t: { after: (fn: () => void) => void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'bert-gen-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

// ---- a BERT forward pass in plain arithmetic (one unpadded sequence, token types 0)

function erf(x: number): number {
  // Abramowitz & Stegun 7.1.26 (|error| < 1.5e-7)
  const s = Math.sign(x);
  const a = Math.abs(x);
  const t = 1 / (1 + 0.3275911 * a);
  const y = 1 - ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * Math.exp(-a * a);
  return s * y;
}
const layerNorm = (x: number[], g: Float32Array, b: Float32Array): number[] => {
  const m = x.reduce((s, v) => s + v, 0) / x.length;
  const v = x.reduce((s, y) => s + (y - m) ** 2, 0) / x.length;
  return x.map((y, i) => ((y - m) / Math.sqrt(v + 1e-12)) * g[i]! + b[i]!);
};
const matVec = (x: number[], w: Float32Array, b: Float32Array, cols: number): number[] => {
  const out = Array.from(b);
  for (let i = 0; i < x.length; i++) for (let j = 0; j < cols; j++) out[j]! += x[i]! * w[i * cols + j]!;
  return out;
};

function referenceForward(s: BertShape, w: BertWeights, ids: number[]): number[][] {
  const h = s.hidden;
  const d = h / s.heads;
  let x = ids.map((id, t) => layerNorm(Array.from({ length: h }, (_, j) => w.word[id * h + j]! + w.position[t * h + j]! + w.tokenType[j]!), w.embLnG, w.embLnB));
  for (const L of w.layers) {
    const q = x.map((r) => matVec(r, L.wq, L.bq, h));
    const k = x.map((r) => matVec(r, L.wk, L.bk, h));
    const v = x.map((r) => matVec(r, L.wv, L.bv, h));
    const ctx = x.map(() => new Array<number>(h).fill(0));
    for (let head = 0; head < s.heads; head++) {
      for (let i = 0; i < x.length; i++) {
        const scores = x.map((_, j) => {
          let dot = 0;
          for (let c = head * d; c < (head + 1) * d; c++) dot += q[i]![c]! * k[j]![c]!;
          return dot / Math.sqrt(d);
        });
        const mx = Math.max(...scores);
        const e = scores.map((z) => Math.exp(z - mx));
        const sum = e.reduce((a, b) => a + b, 0);
        for (let j = 0; j < x.length; j++) for (let c = head * d; c < (head + 1) * d; c++) ctx[i]![c]! += (e[j]! / sum) * v[j]![c]!;
      }
    }
    const attn = x.map((r, i) => layerNorm(matVec(ctx[i]!, L.wo, L.bo, h).map((y, j) => y + r[j]!), L.ln1g, L.ln1b));
    x = attn.map((r) => {
      const up = matVec(r, L.w1, L.b1, s.ffn).map((y) => 0.5 * y * (1 + erf(y / Math.SQRT2)));
      return layerNorm(matVec(up, L.w2, L.b2, h).map((y, j) => y + r[j]!), L.ln2g, L.ln2b);
    });
  }
  return x;
}

const unitMean = (rows: number[][]): number[] => {
  const m = rows[0]!.map((_, j) => rows.reduce((s, r) => s + r[j]!, 0) / rows.length);
  const n = Math.hypot(...m);
  return m.map((y) => y / n);
};
const maxAbsDiff = (a: ArrayLike<number>, b: ArrayLike<number>): number => {
  assert.equal(a.length, b.length);
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i]! - b[i]!));
  return m;
};

test('bert generator: the default shape is all-MiniLM-L6-v2\'s (~22.7M parameters)', () => {
  const p = bertParameters(MINILM_L6_SHAPE);
  assert.ok(p > 22_000_000 && p < 23_000_000, `${p}`);
});

test('bert generator: a WordPiece vocabulary learned from word counts (specials, characters, ## pieces) tokenizes through the encoder path', async (t) => {
  const counts = wordCounts(TEXTS);
  const alphabet = new Set<string>();
  for (const [w] of counts) [...w].forEach((ch, i) => alphabet.add(i === 0 ? ch : `##${ch}`));
  const size = SPECIAL_TOKENS.length + alphabet.size + 40;
  const vocab = learnWordPieceVocab(counts, size);
  assert.equal(vocab.length, size);
  assert.deepEqual(vocab.slice(0, SPECIAL_TOKENS.length), [...SPECIAL_TOKENS]);
  for (const a of alphabet) assert.ok(vocab.includes(a), `character ${a} in the vocabulary`);
  assert.equal(new Set(vocab).size, vocab.length, 'no duplicates');
  assert.ok(vocab.includes('heart'), 'the most frequent word is learned whole');
  assert.ok(vocab.some((v) => v.startsWith('##') && v.length > 3), 'continuation pieces are learned');

  const dir = tempDir(t);
  writeBertEncoder(dir, SMALL, vocab, { seed: 7 });
  const enc = await loadOnnxTextEncoder({ dir });
  t.after(() => enc.close());
  const pieces = (text: string): string[] => enc.tokenIds(text).map((id) => enc.tokenString(id) ?? `<${id}>`);
  // [CLS] ... [SEP] (special ids 2 and 3), lowercased, punctuation alone, whole words and ## pieces
  const ids = enc.tokenIds('Heart, treatments.');
  assert.equal(ids[0], 2);
  assert.equal(ids[ids.length - 1], 3);
  const words = pieces('Heart, treatments.').slice(1, -1);
  assert.equal(words[0], 'heart');
  assert.equal(words[1], ',');
  assert.equal(words[words.length - 1], '.');
  const treatments = words.slice(2, -1);
  assert.ok(treatments.length >= 2 && treatments.slice(1).every((p) => p.startsWith('##')), `${treatments}`);
  assert.equal(treatments.map((p) => p.replace(/^##/, '')).join(''), 'treatments');
  // a character the corpus never had: the word is [UNK] (id 1)
  assert.deepEqual(enc.tokenIds('heart ☃'), [2, vocab.indexOf('heart'), 1, 3]);
});

test('bert generator: the ONNX graph computes BERT (matches a plain forward pass) and padding leaves pooled vectors unchanged', async (t) => {
  const vocab = learnWordPieceVocab(wordCounts(TEXTS), 200);
  const dir = tempDir(t);
  // larger weights and random biases than BERT's initialisation, so attention is far from uniform and a
  // bias or a mask wired wrongly shows
  const built = writeBertEncoder(join(dir, 'masked'), SMALL, vocab, { seed: 11, std: 0.3, biasStd: 0.1 });
  writeBertEncoder(join(dir, 'unmasked'), SMALL, vocab, { seed: 11, std: 0.3, biasStd: 0.1, mask: false });

  // raw graph: last_hidden_state [batch, tokens, hidden], equal to the reference at unpadded positions
  const session = await ort.InferenceSession.create(join(dir, 'masked', 'model.onnx'));
  t.after(() => session.release());
  const seqs = [
    [2, 10, 11, 12, 13, 14, 3],
    [2, 20, 21, 3],
  ];
  const T = 7;
  const flat = (f: (s: number[], c: number) => number) => BigInt64Array.from(seqs.flatMap((s) => Array.from({ length: T }, (_, c) => BigInt(f(s, c)))));
  const out = await session.run({
    input_ids: new ort.Tensor('int64', flat((s, c) => (c < s.length ? s[c]! : 0)), [2, T]),
    attention_mask: new ort.Tensor('int64', flat((s, c) => (c < s.length ? 1 : 0)), [2, T]),
    token_type_ids: new ort.Tensor('int64', new BigInt64Array(2 * T), [2, T]),
  });
  const hidden = out['last_hidden_state']!;
  assert.deepEqual(hidden.dims, [2, T, SMALL.hidden]);
  const data = hidden.data as Float32Array;
  seqs.forEach((s, r) => {
    const ref = referenceForward(built.shape, built.weights, s);
    ref.forEach((row, c) => {
      const got = data.subarray((r * T + c) * SMALL.hidden, (r * T + c + 1) * SMALL.hidden);
      assert.ok(maxAbsDiff(got, row) < 1e-3, `sequence ${r} token ${c}: ${maxAbsDiff(got, row)}`);
    });
  });

  // through the encoder path: mean pooling over unmasked tokens, the same alone and next to a long text
  const short = 'heart attack';
  const long = TEXTS.join(' ');
  const enc = await loadOnnxTextEncoder({ dir: join(dir, 'masked') });
  t.after(() => enc.close());
  assert.equal(enc.info.dims, SMALL.hidden);
  assert.equal(enc.info.pooling, 'mean');
  const [alone] = await enc.encode([short], 'document');
  const [padded, longVec] = await enc.encode([short, long], 'document');
  assert.ok(maxAbsDiff(alone!, padded!) < 1e-5, `padding changed the pooled vector by ${maxAbsDiff(alone!, padded!)}`);
  assert.ok(maxAbsDiff(alone!, unitMean(referenceForward(built.shape, built.weights, enc.tokenIds(short)))) < 1e-3);
  assert.ok(maxAbsDiff(longVec!, unitMean(referenceForward(built.shape, built.weights, enc.tokenIds(long)))) < 1e-3);

  // the same weights without the mask: padding leaks into the short text's vector
  const leaky = await loadOnnxTextEncoder({ dir: join(dir, 'unmasked') });
  t.after(() => leaky.close());
  const [leakAlone] = await leaky.encode([short], 'document');
  const [leakPadded] = await leaky.encode([short, long], 'document');
  assert.ok(maxAbsDiff(leakAlone!, alone!) < 1e-5, 'unpadded, both builds agree');
  assert.ok(maxAbsDiff(leakAlone!, leakPadded!) > 1e-3, 'without the mask, padding must change the vector');
});
