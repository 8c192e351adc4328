// The ONNX cross-encoder (adapters/onnx/onnx-cross-encoder.ts) over a tiny reranker the test writes
// (test/helpers/tiny-onnx.ts: the pair's score is the sum of its tokens' weights): pair tokenization
// with the tokenizer's pair template and type ids, truncation, batching with padding, load errors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadOnnxCrossEncoder } from '../../src/adapters/onnx/onnx-cross-encoder.js';
import { writeTinyCrossEncoder } from '../helpers/tiny-onnx.js';

const WORDS = ['salt', 'caverns', 'hydrogen', 'storage', 'microbes'];
const WEIGHT: Record<string, number> = { salt: 1, caverns: 2, hydrogen: 0.5, storage: 0.25, microbes: 8 };

function tempDir(t: { after: (fn: () => void) => void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'onnx-cross-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test('cross-encoder: pairs are [CLS] query [SEP] text [SEP] with type ids 0 then 1; scores are the models\', batched and padded', async (t) => {
  const dir = tempDir(t);
  writeTinyCrossEncoder(dir, WORDS, (w) => WEIGHT[w]!);
  const enc = await loadOnnxCrossEncoder({ dir, batchSize: 2 });
  t.after(() => enc.close());
  assert.match(enc.info.id, /^[0-9a-f]{64}$/);
  // ids: [PAD]0 [UNK]1 [CLS]2 [SEP]3 salt4 caverns5 hydrogen6 storage7 microbes8
  assert.deepEqual(enc.pair('hydrogen', 'Salt caverns'), { ids: [2, 6, 3, 4, 5, 3], types: [0, 0, 0, 1, 1, 1] });
  // three texts of different lengths in batches of two: padding adds nothing
  const s = await enc.score('hydrogen storage', ['salt caverns', 'microbes', 'nothing known here at all']);
  assert.deepEqual([...s], [0.75 + 3, 0.75 + 8, 0.75]);
});

test('cross-encoder: a long pair keeps the query and loses the text\'s tail, keeping the final [SEP]', async (t) => {
  const dir = tempDir(t);
  writeTinyCrossEncoder(dir, WORDS, (w) => WEIGHT[w]!);
  const enc = await loadOnnxCrossEncoder({ dir, maxTokens: 6 });
  t.after(() => enc.close());
  assert.deepEqual(enc.pair('hydrogen', 'salt caverns microbes').ids, [2, 6, 3, 4, 5, 3]);
  assert.deepEqual([...(await enc.score('hydrogen', ['salt caverns microbes']))], [0.5 + 1 + 2]);
});

test('cross-encoder: a two-class head [batch, 2] scores logit 1 - logit 0', async (t) => {
  const dir = tempDir(t);
  writeTinyCrossEncoder(dir, WORDS, (w) => (w === 'microbes' ? [1, 9] : w === 'salt' ? [2, 1] : [0, 0]));
  const enc = await loadOnnxCrossEncoder({ dir });
  t.after(() => enc.close());
  assert.deepEqual([...(await enc.score('hydrogen', ['microbes', 'salt', 'caverns']))], [8, -1, 0]);
});

test('cross-encoder: a directory without the model or tokenizer is refused naming the file', async (t) => {
  const dir = tempDir(t);
  writeTinyCrossEncoder(dir, WORDS, () => 1);
  unlinkSync(join(dir, 'tokenizer.json'));
  await assert.rejects(loadOnnxCrossEncoder({ dir }), /has no tokenizer.json/);
  await assert.rejects(loadOnnxCrossEncoder({ dir: join(dir, 'absent') }), /has no model.onnx/);
});
