// Builds a tiny ONNX text encoder and a BERT-style tokenizer.json for tests, so no model is downloaded:
// the ModelProto is written with the minimal protobuf writer of onnx-proto.ts. The graph is
//   input_ids [batch, tokens] (int64) -> Gather(embedding table) -> last_hidden_state [batch, tokens, dims]
// with an attention_mask input the graph does not use (as BERT exports declare it), so pooling, masking
// of padding and normalization are the encoder's own work and a test can compute them by hand.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { wordPieceTokenizerJson } from './bert-tokenizer.js';
import { FLOAT, INT32, INT64, Pb, valueInfo } from './onnx-proto.js';

export interface TinyModelShape {
  /** Element type of input_ids (default int64). */
  ids?: 'int64' | 'int32';
  /** Declare an (unused) token_type_ids input, as BERT exports do. */
  tokenTypes?: boolean;
  /** Output a pooled `sentence_embedding` [batch, dims] (ReduceMean over all tokens, padding included) instead of token vectors. */
  pooled?: boolean;
  /** Name of the token-vector output (default last_hidden_state; a SPLADE model's is `logits`). */
  output?: string;
}

/** The ONNX bytes of the tiny encoder with the given embedding table (one row per token id). */
export function tinyEncoderModel(table: number[][], shape: TinyModelShape = {}): Uint8Array {
  const vocab = table.length;
  const dims = table[0]!.length;
  const raw = new Uint8Array(new Float32Array(table.flat()).buffer);
  const initializer = new Pb().int(1, vocab).int(1, dims).int(2, FLOAT).str(8, 'embeddings').bytes(9, raw);
  const tokensOut = shape.pooled ? 'token_vectors' : (shape.output ?? 'last_hidden_state');
  const gather = new Pb().str(1, 'embeddings').str(1, 'input_ids').str(2, tokensOut).str(3, 'gather').str(4, 'Gather');
  const graph = new Pb().msg(1, gather);
  if (shape.pooled) {
    // ReduceMean(axes=[1], keepdims=0): AttributeProto name=1, i=3, ints=8, type=20 (INT 2, INTS 7)
    const axes = new Pb().str(1, 'axes').int(8, 1).int(20, 7);
    const keep = new Pb().str(1, 'keepdims').int(3, 0).int(20, 2);
    graph.msg(1, new Pb().str(1, tokensOut).str(2, 'sentence_embedding').str(3, 'pool').str(4, 'ReduceMean').msg(5, axes).msg(5, keep));
  }
  graph
    .str(2, 'tiny-encoder')
    .msg(5, initializer)
    .msg(11, valueInfo('input_ids', shape.ids === 'int32' ? INT32 : INT64, ['batch', 'tokens']))
    .msg(11, valueInfo('attention_mask', INT64, ['batch', 'tokens']));
  if (shape.tokenTypes) graph.msg(11, valueInfo('token_type_ids', INT64, ['batch', 'tokens']));
  graph.msg(12, shape.pooled ? valueInfo('sentence_embedding', FLOAT, ['batch', dims]) : valueInfo(tokensOut, FLOAT, ['batch', 'tokens', dims]));
  return new Pb()
    .int(1, 8) // ir_version
    .str(2, 'lectern-tests')
    .msg(7, graph)
    .msg(8, new Pb().str(1, '').int(2, 13)) // opset ai.onnx 13
    .done();
}

/** A BERT-style tokenizer.json (BertNormalizer, BertPreTokenizer, WordPiece, [CLS] $A [SEP]) over `words`; ids 0..3 are [PAD] [UNK] [CLS] [SEP]. */
export function tinyTokenizer(words: string[]): Record<string, unknown> {
  const vocab: Record<string, number> = { '[PAD]': 0, '[UNK]': 1, '[CLS]': 2, '[SEP]': 3 };
  words.forEach((w, i) => (vocab[w] = i + 4));
  return wordPieceTokenizerJson(vocab, ['[PAD]', '[UNK]', '[CLS]', '[SEP]']);
}

/** Writes model.onnx + tokenizer.json (+ optional extra files) into `dir`. */
export function writeTinyEncoder(dir: string, table: number[][], words: string[], extra: Record<string, unknown> = {}, shape: TinyModelShape = {}): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'model.onnx'), tinyEncoderModel(table, shape));
  writeFileSync(join(dir, 'tokenizer.json'), JSON.stringify(tinyTokenizer(words)));
  for (const [name, json] of Object.entries(extra)) {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), JSON.stringify(json));
  }
}

/**
 * The ONNX bytes of a tiny cross-encoder: one weight per token id, and the pair's score is the sum of
 * its tokens' weights (padding has weight 0 when `weights[0]` is 0):
 *   input_ids [batch, tokens] -> Gather(weights [vocab, 1]) -> ReduceSum(axes 1, 2) -> logits [batch]
 * with attention_mask and token_type_ids inputs the graph does not use (opset 11: ReduceSum's axes are an attribute).
 */
export function tinyCrossEncoderModel(weights: number[] | [number, number][]): Uint8Array {
  // a two-class head: one [w0, w1] pair per token id, summed over tokens -> logits [batch, 2]
  const twoClass = Array.isArray(weights[0]);
  const raw = new Uint8Array(new Float32Array((weights as (number | number[])[]).flat()).buffer);
  const initializer = new Pb().int(1, weights.length).int(1, twoClass ? 2 : 1).int(2, FLOAT).str(8, 'weights').bytes(9, raw);
  const gather = new Pb().str(1, 'weights').str(1, 'input_ids').str(2, 'token_scores').str(3, 'gather').str(4, 'Gather');
  const axes = twoClass ? new Pb().str(1, 'axes').int(8, 1).int(20, 7) : new Pb().str(1, 'axes').int(8, 1).int(8, 2).int(20, 7);
  const keep = new Pb().str(1, 'keepdims').int(3, 0).int(20, 2);
  const sum = new Pb().str(1, 'token_scores').str(2, 'logits').str(3, 'sum').str(4, 'ReduceSum').msg(5, axes).msg(5, keep);
  const graph = new Pb()
    .msg(1, gather)
    .msg(1, sum)
    .str(2, 'tiny-cross-encoder')
    .msg(5, initializer)
    .msg(11, valueInfo('input_ids', INT64, ['batch', 'tokens']))
    .msg(11, valueInfo('attention_mask', INT64, ['batch', 'tokens']))
    .msg(11, valueInfo('token_type_ids', INT64, ['batch', 'tokens']))
    .msg(12, valueInfo('logits', FLOAT, twoClass ? ['batch', 2] : ['batch']));
  return new Pb().int(1, 7).str(2, 'lectern-tests').msg(7, graph).msg(8, new Pb().str(1, '').int(2, 11)).done();
}

/** Writes a tiny cross-encoder (model.onnx + tokenizer.json over `words`, ids 4.. in order) into `dir`; `weight(word)` scores each word (special tokens 0). */
export function writeTinyCrossEncoder(dir: string, words: string[], weight: (word: string) => number | [number, number]): void {
  mkdirSync(dir, { recursive: true });
  const w = words.map(weight);
  const twoClass = Array.isArray(w[0]);
  writeFileSync(join(dir, 'model.onnx'), tinyCrossEncoderModel(twoClass ? ([[0, 0], [0, 0], [0, 0], [0, 0], ...w] as [number, number][]) : ([0, 0, 0, 0, ...w] as number[])));
  writeFileSync(join(dir, 'tokenizer.json'), JSON.stringify(tinyTokenizer(words)));
}
