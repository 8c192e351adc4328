// The ONNX text encoder (adapters/onnx) over a tiny model and tokenizer the test writes itself
// (test/helpers/tiny-onnx.ts): tokenization through tokenizer.json, masked mean / CLS pooling,
// normalization, truncation, batching, prefixes, the model's SHA-256 id and load errors, checked
// against vectors computed by hand.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadOnnxTextEncoder } from '../../src/adapters/onnx/onnx-text-encoder.js';
import { runCli } from '../../src/cli/main.js';
import { writeTinyEncoder } from '../helpers/tiny-onnx.js';

const WORDS = ['heart', 'attack', '##s', 'myocardial', 'infarction', 'the'];
// rows: [PAD] [UNK] [CLS] [SEP] heart attack ##s myocardial infarction the
const TABLE = [
  [100, -50, 7], // [PAD]: far from everything, so padding that leaks into a mean shows
  [0, 0, 5],
  [1, 0, 0],
  [0, 1, 0],
  [2, 0, 0],
  [0, 2, 0],
  [0, 0, 2],
  [3, 0, 0],
  [0, 0, 3],
  [1, 1, 1],
];

const unit = (v: number[]): number[] => {
  const n = Math.hypot(...v);
  return v.map((x) => x / n);
};
const close = (got: Float32Array, want: number[], what: string): void => {
  assert.equal(got.length, want.length, what);
  for (let i = 0; i < want.length; i++) assert.ok(Math.abs(got[i]! - want[i]!) < 1e-6, `${what}: [${[...got]}] vs [${want}]`);
};

function tempDir(t: { after: (fn: () => void) => void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'onnx-enc-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test('onnx encoder: tokenizer.json WordPiece ids and masked mean pooling, normalized, match hand-computed vectors', async (t) => {
  const dir = tempDir(t);
  writeTinyEncoder(dir, TABLE, WORDS);
  const enc = await loadOnnxTextEncoder({ dir });
  t.after(() => enc.close());
  assert.equal(enc.info.dims, 3);
  assert.equal(enc.info.pooling, 'mean');
  assert.match(enc.info.id, /^[0-9a-f]{64}$/);
  // lowercased, split into word pieces, wrapped in [CLS] ... [SEP]
  assert.deepEqual(enc.tokenIds('Heart attacks'), [2, 4, 5, 6, 3]);
  assert.deepEqual(enc.tokenIds('xyzzy'), [2, 1, 3]);
  // one batch holding a 5-token and a 3-token text: the short one is padded with [PAD] rows that must not count
  const [a, b] = await enc.encode(['Heart attacks', 'myocardial'], 'document');
  close(a!, unit([3, 3, 2]), 'heart attacks'); // ([CLS] + heart + attack + ##s + [SEP]) / 5
  close(b!, unit([4, 1, 0]), 'myocardial'); // ([CLS] + myocardial + [SEP]) / 3
});

test('onnx encoder: batches keep input order whatever the batch size', async (t) => {
  const dir = tempDir(t);
  writeTinyEncoder(dir, TABLE, WORDS);
  const texts = ['the heart', 'myocardial infarction of the heart', 'attacks', 'heart attacks the the the', 'infarction'];
  const one = await loadOnnxTextEncoder({ dir, batchSize: 1 });
  const two = await loadOnnxTextEncoder({ dir, batchSize: 2 });
  t.after(async () => {
    await one.close();
    await two.close();
  });
  const single = await one.encode(texts, 'document');
  const batched = await two.encode(texts, 'document');
  for (let i = 0; i < texts.length; i++) close(batched[i]!, [...single[i]!], texts[i]!);
  close(single[2]!, unit([1 + 0 + 0 + 0, 0 + 2 + 0 + 1, 0 + 0 + 2 + 0]), 'attacks');
});

test('onnx encoder: truncation keeps the final [SEP]; cls pooling from 1_Pooling/config.json; prefixes per kind', async (t) => {
  const dir = tempDir(t);
  writeTinyEncoder(dir, TABLE, WORDS, { '1_Pooling/config.json': { word_embedding_dimension: 3, pooling_mode_cls_token: true, pooling_mode_mean_tokens: false } });
  const cls = await loadOnnxTextEncoder({ dir });
  const short = await loadOnnxTextEncoder({ dir, maxTokens: 3, pooling: 'mean' });
  const prefixed = await loadOnnxTextEncoder({ dir, pooling: 'mean', queryPrefix: 'the ', documentPrefix: '' });
  t.after(async () => {
    await cls.close();
    await short.close();
    await prefixed.close();
  });
  assert.equal(cls.info.pooling, 'cls');
  close((await cls.encode(['heart attacks'], 'query'))[0]!, [1, 0, 0], 'cls vector is the [CLS] row');
  assert.deepEqual(short.tokenIds('heart attacks'), [2, 4, 3]);
  close((await short.encode(['heart attacks'], 'query'))[0]!, unit([3, 1, 0]), 'truncated');
  const [q] = await prefixed.encode(['heart'], 'query');
  const [d] = await prefixed.encode(['heart'], 'document');
  close(q!, unit([4, 2, 1]), 'query with prefix "the "'); // [CLS] the heart [SEP]
  close(d!, unit([3, 1, 0]), 'document without prefix');
  // the id covers what changes vectors: settings and weights
  assert.notEqual(cls.info.id, short.info.id);
  assert.notEqual(short.info.id, prefixed.info.id);
});

test('onnx encoder: int32 ids and token_type_ids inputs are fed; a pooled sentence_embedding output is used as the model gives it', async (t) => {
  const dir = tempDir(t);
  writeTinyEncoder(dir, TABLE, WORDS, {}, { ids: 'int32', tokenTypes: true });
  const typed = await loadOnnxTextEncoder({ dir });
  const pooledDir = tempDir(t);
  writeTinyEncoder(pooledDir, TABLE, WORDS, {}, { pooled: true });
  const pooled = await loadOnnxTextEncoder({ dir: pooledDir, pooling: 'cls' });
  t.after(async () => {
    await typed.close();
    await pooled.close();
  });
  close((await typed.encode(['Heart attacks'], 'query'))[0]!, unit([3, 3, 2]), 'int32 ids');
  assert.equal(pooled.info.pooling, 'model');
  assert.equal(pooled.info.dims, 3);
  // alone in its batch, no padding: the model's own mean of [CLS] heart [SEP]
  close((await pooled.encode(['heart'], 'query'))[0]!, unit([3, 1, 0]), 'pooled output');
});

test('onnx encoder: the id is stable for the same files and changes with the weights', async (t) => {
  const dir = tempDir(t);
  writeTinyEncoder(dir, TABLE, WORDS);
  const first = await loadOnnxTextEncoder({ dir });
  const again = await loadOnnxTextEncoder({ dir });
  const other = tempDir(t);
  writeTinyEncoder(other, TABLE.map((r, i) => (i === 4 ? [2, 0, 1] : r)), WORDS);
  const changed = await loadOnnxTextEncoder({ dir: other });
  t.after(async () => {
    await first.close();
    await again.close();
    await changed.close();
  });
  assert.equal(first.info.id, again.info.id);
  assert.notEqual(first.info.id, changed.info.id);
});

test('onnx encoder: a directory without its files, or with an unreadable model, fails with a message that says what to fix', async (t) => {
  const dir = tempDir(t);
  await assert.rejects(loadOnnxTextEncoder({ dir }), /has no model\.onnx.*docs\/models\.md/);
  writeTinyEncoder(dir, TABLE, WORDS);
  rmSync(join(dir, 'tokenizer.json'));
  await assert.rejects(loadOnnxTextEncoder({ dir }), /has no tokenizer\.json/);
  writeTinyEncoder(dir, TABLE, WORDS);
  writeFileSync(join(dir, 'model.onnx'), 'not a model');
  await assert.rejects(loadOnnxTextEncoder({ dir }), /cannot be loaded by onnxruntime/);
  writeTinyEncoder(dir, TABLE, WORDS, { '1_Pooling/config.json': { pooling_mode_max_tokens: true } });
  await assert.rejects(loadOnnxTextEncoder({ dir }), /pooling Lectern does not support/);
});

test('lectern models check-encoder prints the id, dimensions and hand-checkable cosines; a missing model exits 1 with the reason', async (t) => {
  const dir = tempDir(t);
  writeTinyEncoder(dir, TABLE, WORDS);
  const ctx = {
    loadConfig: () => {
      throw new Error('check-encoder opens no app');
    },
    openApp: () => Promise.reject(new Error('check-encoder opens no app')),
    serve: () => Promise.resolve(),
    loadTextEncoder: loadOnnxTextEncoder,
  };
  const run = async (args: string[]): Promise<{ code: number; stdout: string; stderr: string }> => {
    const out = process.stdout.write.bind(process.stdout);
    const err = process.stderr.write.bind(process.stderr);
    let stdout = '';
    let stderr = '';
    // the CLI writes strings; the test runner's own (binary) events pass through untouched
    process.stdout.write = ((c: string | Uint8Array, ...rest: unknown[]) => (typeof c === 'string' ? ((stdout += c), true) : (out as (...a: unknown[]) => boolean)(c, ...rest))) as typeof process.stdout.write;
    process.stderr.write = ((c: string | Uint8Array, ...rest: unknown[]) => (typeof c === 'string' ? ((stderr += c), true) : (err as (...a: unknown[]) => boolean)(c, ...rest))) as typeof process.stderr.write;
    try {
      return { code: await runCli(args, ctx), stdout, stderr };
    } finally {
      process.stdout.write = out;
      process.stderr.write = err;
    }
  };
  const ok = await run(['models', 'check-encoder', dir, '--text', 'heart attacks', '--text', 'myocardial infarction', '--text', 'heart']);
  assert.equal(ok.code, 0, ok.stderr);
  const r = JSON.parse(ok.stdout) as { id: string; dims: number; pooling: string; similarities: { text: string; cosine: number }[] };
  assert.equal(r.dims, 3);
  assert.equal(r.pooling, 'mean');
  assert.match(r.id, /^[0-9a-f]{64}$/);
  // query unit([3,3,2]); documents [CLS] myocardial infarction [SEP] = [4,1,3] and [CLS] heart [SEP] = [3,1,0]
  assert.equal(r.similarities[0]!.cosine, Math.round((21 / Math.sqrt(22 * 26)) * 1e4) / 1e4);
  assert.equal(r.similarities[1]!.cosine, Math.round((12 / Math.sqrt(22 * 10)) * 1e4) / 1e4);
  const missing = await run(['models', 'check-encoder', join(dir, 'nowhere')]);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /has no model\.onnx/);
  const usage = await run(['models', 'check-encoder']);
  assert.equal(usage.code, 2);
});

test('onnx encoder: close waits for encodes in flight, may be called twice, and an encode after it fails with an error', async (t) => {
  const dir = tempDir(t);
  writeTinyEncoder(dir, TABLE, WORDS);
  const enc = await loadOnnxTextEncoder({ dir });
  const inflight = Array.from({ length: 8 }, () => enc.encode(['Heart attacks', 'myocardial infarction'], 'document'));
  const closed = enc.close();
  // every encode started before the close completes with its vectors (the session is released after them)
  for (const r of await Promise.all(inflight)) close(r[0]!, unit([3, 3, 2]), 'heart attacks, encoded while closing');
  await closed;
  await enc.close();
  await assert.rejects(enc.encode(['heart'], 'query'), /closed/);
});
