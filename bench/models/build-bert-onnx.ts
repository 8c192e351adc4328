// Builds a BERT-style text encoder with the architecture and size of a real one (default: the shape of
// all-MiniLM-L6-v2: 6 layers, 384 wide, 12 heads, FFN 1536, 512 positions, ~22.7M parameters) as an
// ONNX file with seeded random weights (N(0, 0.02), BERT's initialisation), plus a real WordPiece
// `tokenizer.json` (Hugging Face tokenizers format) whose ~30k vocabulary is learned from a corpus'
// word counts. No pretrained weights can be downloaded here: the vectors are meaningless, but the
// work per token is the real model's, so speed, memory and index size measured through Lectern's
// encoder path (bench/models/encoder.bench.ts) are what a real model of that shape costs (ADR 0285).
//
// The ModelProto is written with a minimal protobuf writer (wire format only, onnx.proto3 field
// numbers; the approach of test/helpers/tiny-onnx.ts, with chunked output for 90 MB of weights). The
// graph is the one a Hugging Face BERT export has (opset 17):
//   input_ids, token_type_ids -> Gather(word) + Slice(position)[0:T] + Gather(token type) -> LayerNorm
//   attention_mask -> Cast -> Unsqueeze [B,1,1,T] -> (1 - m) x -10000 (additive mask)
//   N x [ Q/K/V = MatMul + Add -> Reshape [B,T,h,d] -> Transpose (K to [B,h,d,T])
//         scores = MatMul(Q, K) / sqrt(d) + mask -> Softmax -> MatMul V -> Transpose -> Reshape [B,T,H]
//         -> MatMul + Add (output projection) -> + residual -> LayerNorm
//         -> MatMul + Add (FFN up) -> Gelu (erf form: x * 0.5 * (1 + erf(x / sqrt 2)))
//         -> MatMul + Add (FFN down) -> + residual -> LayerNorm ]
//   -> last_hidden_state [B, T, H] (pooled by Lectern's encoder: mean over unmasked tokens).
//
//   node dist/bench/models/build-bert-onnx.js [--out tmp/models/bert-6x384] [--layers 6] [--hidden 384]
//     [--heads 12] [--ffn 1536] [--vocab 30522] [--corpus /work/shared/data/ir/scifact/corpus.jsonl] [--seed 1]
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { wordPieceTokenizerJson } from '../../test/helpers/bert-tokenizer.js';
import { FLOAT, INT64, Pb, valueInfo } from '../../test/helpers/onnx-proto.js';

type Attr = number | { f: number } | number[];

/** NodeProto; integer attributes as numbers, float ones as {f}, integer lists as arrays. */
function node(op: string, inputs: string[], outputs: string[], name: string, attrs: Record<string, Attr> = {}): Pb {
  const n = new Pb();
  for (const i of inputs) n.str(1, i);
  for (const o of outputs) n.str(2, o);
  n.str(3, name).str(4, op);
  for (const [k, v] of Object.entries(attrs)) {
    const a = new Pb().str(1, k);
    if (Array.isArray(v)) {
      for (const x of v) a.int(8, x);
      a.int(20, 7); // INTS
    } else if (typeof v === 'number') a.int(3, v).int(20, 2); // INT
    else a.float(2, v.f).int(20, 1); // FLOAT
    n.msg(5, a);
  }
  return n;
}

function tensor(name: string, dims: number[], data: Float32Array | BigInt64Array): Pb {
  const t = new Pb();
  for (const d of dims) t.int(1, d);
  t.int(2, data instanceof Float32Array ? FLOAT : INT64).str(8, name);
  return t.bytes(9, new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
}

// ---------------------------------------------------------------- weights

/** Shape of a BERT encoder. */
export interface BertShape {
  layers: number;
  hidden: number;
  heads: number;
  ffn: number;
  vocab: number;
  maxPositions: number;
  typeVocab: number;
}

export const MINILM_L6_SHAPE: BertShape = { layers: 6, hidden: 384, heads: 12, ffn: 1536, vocab: 30522, maxPositions: 512, typeVocab: 2 };

export interface BertLayerWeights {
  wq: Float32Array; bq: Float32Array; wk: Float32Array; bk: Float32Array; wv: Float32Array; bv: Float32Array;
  wo: Float32Array; bo: Float32Array; ln1g: Float32Array; ln1b: Float32Array;
  w1: Float32Array; b1: Float32Array; w2: Float32Array; b2: Float32Array; ln2g: Float32Array; ln2b: Float32Array;
}

/** All weights; matrices row-major [in, out] (ONNX MatMul's right operand). */
export interface BertWeights {
  word: Float32Array; // [vocab, hidden]
  position: Float32Array; // [maxPositions, hidden]
  tokenType: Float32Array; // [typeVocab, hidden]
  embLnG: Float32Array;
  embLnB: Float32Array;
  layers: BertLayerWeights[];
}

/** Seeded normal N(0, std) samples (mulberry32 + Box-Muller). */
function gaussian(seed: number): (std: number) => number {
  let s = seed >>> 0;
  const uniform = (): number => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  let spare: number | null = null;
  return (std) => {
    if (spare !== null) {
      const v = spare;
      spare = null;
      return v * std;
    }
    const u = 1 - uniform();
    const r = Math.sqrt(-2 * Math.log(u));
    const a = 2 * Math.PI * uniform();
    spare = r * Math.sin(a);
    return r * Math.cos(a) * std;
  };
}

/**
 * Seeded random weights: matrices and embeddings N(0, std) (BERT initialises with 0.02), LayerNorm
 * gains 1; biases and LayerNorm shifts N(0, biasStd) (0 in BERT's initialisation; tests set it so a
 * bias wired to the wrong place shows).
 */
export function randomBertWeights(shape: BertShape, seed = 1, std = 0.02, biasStd = 0): BertWeights {
  const g = gaussian(seed);
  const fill = (n: number, s: number): Float32Array => {
    const a = new Float32Array(n);
    if (s > 0) for (let i = 0; i < n; i++) a[i] = g(s);
    return a;
  };
  const ones = (n: number): Float32Array => new Float32Array(n).fill(1);
  const { hidden: h, ffn: f } = shape;
  const gain = (n: number): Float32Array => (biasStd > 0 ? Float32Array.from(ones(n), (x) => x + g(biasStd)) : ones(n));
  const layers: BertLayerWeights[] = [];
  const word = fill(shape.vocab * h, std);
  const position = fill(shape.maxPositions * h, std);
  const tokenType = fill(shape.typeVocab * h, std);
  const embLnG = gain(h);
  const embLnB = fill(h, biasStd);
  for (let l = 0; l < shape.layers; l++) {
    layers.push({
      wq: fill(h * h, std), bq: fill(h, biasStd), wk: fill(h * h, std), bk: fill(h, biasStd), wv: fill(h * h, std), bv: fill(h, biasStd),
      wo: fill(h * h, std), bo: fill(h, biasStd), ln1g: gain(h), ln1b: fill(h, biasStd),
      w1: fill(h * f, std), b1: fill(f, biasStd), w2: fill(f * h, std), b2: fill(h, biasStd), ln2g: gain(h), ln2b: fill(h, biasStd),
    });
  }
  return { word, position, tokenType, embLnG, embLnB, layers };
}

/** Number of parameters of a BERT encoder of this shape (no pooler head). */
export function bertParameters(s: BertShape): number {
  const h = s.hidden;
  const perLayer = 4 * (h * h + h) + 2 * h + (h * s.ffn + s.ffn) + (s.ffn * h + h) + 2 * h;
  return (s.vocab + s.maxPositions + s.typeVocab) * h + 2 * h + s.layers * perLayer;
}

export interface BertGraphOptions {
  /** Apply attention_mask as an additive mask (default true; false builds a model that attends to padding, for tests). */
  mask?: boolean;
  /** LayerNorm epsilon (BERT: 1e-12). */
  epsilon?: number;
}

// ---------------------------------------------------------------- graph

/** The ONNX bytes (opset 17) of a BERT encoder with these weights. */
export function bertOnnxModel(shape: BertShape, w: BertWeights, options: BertGraphOptions = {}): Uint8Array {
  const { hidden: h, heads, ffn: f } = shape;
  if (h % heads !== 0) throw new RangeError(`hidden ${h} is not a multiple of heads ${heads}`);
  const d = h / heads;
  const eps = options.epsilon ?? 1e-12;
  const graph = new Pb();
  const inits: Pb[] = [];
  const init = (name: string, dims: number[], data: Float32Array | BigInt64Array): string => {
    inits.push(tensor(name, dims, data));
    return name;
  };
  const add = (op: string, inputs: string[], output: string, attrs: Record<string, Attr> = {}): string => {
    graph.msg(1, node(op, inputs, [output], output, attrs));
    return output;
  };
  const i64 = (...v: number[]): BigInt64Array => BigInt64Array.from(v.map((x) => BigInt(x)));
  const scalar = (name: string, v: number): string => init(name, [], Float32Array.of(v));

  // embeddings
  init('word_embeddings', [shape.vocab, h], w.word);
  init('position_embeddings', [shape.maxPositions, h], w.position);
  init('token_type_embeddings', [shape.typeVocab, h], w.tokenType);
  init('zero_1d', [1], i64(0));
  init('axis0_1d', [1], i64(0));
  add('Gather', ['word_embeddings', 'input_ids'], 'emb_word');
  add('Shape', ['input_ids'], 'seq_len_1d', { start: 1, end: 2 });
  add('Slice', ['position_embeddings', 'zero_1d', 'seq_len_1d', 'axis0_1d'], 'emb_pos');
  add('Gather', ['token_type_embeddings', 'token_type_ids'], 'emb_type');
  add('Add', ['emb_word', 'emb_pos'], 'emb_sum1');
  add('Add', ['emb_sum1', 'emb_type'], 'emb_sum');
  init('emb_ln_g', [h], w.embLnG);
  init('emb_ln_b', [h], w.embLnB);
  let x = add('LayerNormalization', ['emb_sum', 'emb_ln_g', 'emb_ln_b'], 'emb_out', { axis: -1, epsilon: { f: eps } });

  // additive attention mask [B, 1, 1, T]: 0 where attended, -10000 at padding
  let mask: string | null = null;
  if (options.mask !== false) {
    init('mask_axes', [2], i64(1, 2));
    scalar('one', 1);
    scalar('mask_neg', -10000);
    add('Cast', ['attention_mask'], 'mask_f', { to: FLOAT });
    add('Unsqueeze', ['mask_f', 'mask_axes'], 'mask_4d');
    add('Sub', ['one', 'mask_4d'], 'mask_inv');
    mask = add('Mul', ['mask_inv', 'mask_neg'], 'mask_add');
  }
  init('shape_heads', [4], i64(0, 0, heads, d));
  init('shape_merge', [3], i64(0, 0, h));
  scalar('att_scale', Math.sqrt(d));
  scalar('sqrt2', Math.SQRT2);
  if (mask === null) scalar('one', 1);
  scalar('half', 0.5);

  w.layers.forEach((L, l) => {
    const p = `l${l}_`;
    const proj = (name: string, input: string, wm: Float32Array, b: Float32Array, rows: number, cols: number): string => {
      init(`${p}${name}_w`, [rows, cols], wm);
      init(`${p}${name}_b`, [cols], b);
      add('MatMul', [input, `${p}${name}_w`], `${p}${name}_mm`);
      return add('Add', [`${p}${name}_mm`, `${p}${name}_b`], `${p}${name}`);
    };
    const q = proj('q', x, L.wq, L.bq, h, h);
    const k = proj('k', x, L.wk, L.bk, h, h);
    const v = proj('v', x, L.wv, L.bv, h, h);
    add('Reshape', [q, 'shape_heads'], `${p}q_4d`);
    add('Transpose', [`${p}q_4d`], `${p}q_h`, { perm: [0, 2, 1, 3] });
    add('Reshape', [k, 'shape_heads'], `${p}k_4d`);
    add('Transpose', [`${p}k_4d`], `${p}k_h`, { perm: [0, 2, 3, 1] });
    add('Reshape', [v, 'shape_heads'], `${p}v_4d`);
    add('Transpose', [`${p}v_4d`], `${p}v_h`, { perm: [0, 2, 1, 3] });
    add('MatMul', [`${p}q_h`, `${p}k_h`], `${p}scores_raw`);
    let scores = add('Div', [`${p}scores_raw`, 'att_scale'], `${p}scores_scaled`);
    if (mask !== null) scores = add('Add', [scores, mask], `${p}scores`);
    add('Softmax', [scores], `${p}probs`, { axis: -1 });
    add('MatMul', [`${p}probs`, `${p}v_h`], `${p}ctx_h`);
    add('Transpose', [`${p}ctx_h`], `${p}ctx_t`, { perm: [0, 2, 1, 3] });
    add('Reshape', [`${p}ctx_t`, 'shape_merge'], `${p}ctx`);
    const o = proj('o', `${p}ctx`, L.wo, L.bo, h, h);
    add('Add', [o, x], `${p}res1`);
    init(`${p}ln1_g`, [h], L.ln1g);
    init(`${p}ln1_b`, [h], L.ln1b);
    const a = add('LayerNormalization', [`${p}res1`, `${p}ln1_g`, `${p}ln1_b`], `${p}attn_out`, { axis: -1, epsilon: { f: eps } });
    const up = proj('ffn_up', a, L.w1, L.b1, h, f);
    add('Div', [up, 'sqrt2'], `${p}gelu_div`);
    add('Erf', [`${p}gelu_div`], `${p}gelu_erf`);
    add('Add', [`${p}gelu_erf`, 'one'], `${p}gelu_add`);
    add('Mul', [up, `${p}gelu_add`], `${p}gelu_mul`);
    const gelu = add('Mul', [`${p}gelu_mul`, 'half'], `${p}gelu`);
    const down = proj('ffn_down', gelu, L.w2, L.b2, f, h);
    add('Add', [down, a], `${p}res2`);
    init(`${p}ln2_g`, [h], L.ln2g);
    init(`${p}ln2_b`, [h], L.ln2b);
    x = add('LayerNormalization', [`${p}res2`, `${p}ln2_g`, `${p}ln2_b`], l === w.layers.length - 1 ? 'last_hidden_state' : `${p}out`, { axis: -1, epsilon: { f: eps } });
  });
  if (w.layers.length === 0) add('Identity', [x], 'last_hidden_state');

  graph.str(2, `bert-${shape.layers}x${h}`);
  for (const t of inits) graph.msg(5, t);
  graph
    .msg(11, valueInfo('input_ids', INT64, ['batch', 'sequence']))
    .msg(11, valueInfo('attention_mask', INT64, ['batch', 'sequence']))
    .msg(11, valueInfo('token_type_ids', INT64, ['batch', 'sequence']))
    .msg(12, valueInfo('last_hidden_state', FLOAT, ['batch', 'sequence', h]));
  return new Pb()
    .int(1, 8) // ir_version
    .str(2, 'lectern-bench')
    .msg(7, graph)
    .msg(8, new Pb().str(1, '').int(2, 17)) // opset ai.onnx 17 (LayerNormalization)
    .done();
}

// ---------------------------------------------------------------- WordPiece vocabulary

const PUNCT = /([\p{P}\x21-\x2f\x3a-\x40\x5b-\x60\x7b-\x7e])/u;

/** A text's words as BertNormalizer (lowercase, accents stripped, control characters dropped) and BertPreTokenizer (whitespace, each punctuation character alone) cut it. */
export function bertWords(text: string): string[] {
  const t = text
    .toLowerCase()
    .normalize('NFD')
    .replace(/\p{Mn}/gu, '')
    .replace(/[\p{Cc}\p{Cf}]/gu, (c) => (c === '\t' || c === '\n' || c === '\r' ? ' ' : ''));
  const out: string[] = [];
  for (const w of t.split(/\s+/)) {
    if (w === '') continue;
    for (const piece of w.split(PUNCT)) if (piece !== '') out.push(piece);
  }
  return out;
}

export const SPECIAL_TOKENS = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'] as const;

/**
 * A WordPiece vocabulary of at most `size` entries learned from word counts the way Hugging Face's
 * WordPiece trainer does it (BPE merges over words spelled as a first character and `##` continuation
 * characters; the most frequent adjacent pair merges first, ties by first seen): the special tokens,
 * every character seen (alone and as `##c`), then merged pieces in merge order. Words longer than 100
 * characters are skipped (the tokenizer maps them to [UNK]).
 */
export function learnWordPieceVocab(counts: Map<string, number>, size: number): string[] {
  const tokens: string[] = [...SPECIAL_TOKENS];
  const idOf = new Map<string, number>();
  tokens.forEach((t, i) => idOf.set(t, i));
  const intern = (t: string): number => {
    let id = idOf.get(t);
    if (id === undefined) {
      id = tokens.length;
      tokens.push(t);
      idOf.set(t, id);
    }
    return id;
  };
  const words: number[][] = [];
  const freq: number[] = [];
  // characters first, in order of frequency (so a small vocabulary keeps the common ones)
  const charCount = new Map<string, number>();
  for (const [w, c] of counts) {
    const chars = [...w];
    if (chars.length > 100) continue;
    chars.forEach((ch, i) => {
      const t = i === 0 ? ch : `##${ch}`;
      charCount.set(t, (charCount.get(t) ?? 0) + c);
    });
  }
  for (const [t] of [...charCount].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))) intern(t);
  for (const [w, c] of counts) {
    const chars = [...w];
    if (chars.length > 100) continue;
    words.push(chars.map((ch, i) => idOf.get(i === 0 ? ch : `##${ch}`)!));
    freq.push(c);
  }
  if (tokens.length >= size) return tokens.slice(0, size);

  const SHIFT = 2 ** 21;
  const key = (a: number, b: number): number => a * SHIFT + b;
  const pairCount = new Map<number, number>();
  const pairWords = new Map<number, Set<number>>();
  // max-heap of [count, key] with lazy deletion (an entry whose count is stale is re-pushed or dropped)
  const heap: [number, number][] = [];
  const better = (x: [number, number], y: [number, number]): boolean => x[0] > y[0] || (x[0] === y[0] && x[1] < y[1]);
  const push = (e: [number, number]): void => {
    heap.push(e);
    let i = heap.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!better(heap[i]!, heap[p]!)) break;
      [heap[i], heap[p]] = [heap[p]!, heap[i]!];
      i = p;
    }
  };
  const pop = (): [number, number] | undefined => {
    const top = heap[0];
    const last = heap.pop()!;
    if (heap.length > 0) {
      heap[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < heap.length && better(heap[l]!, heap[m]!)) m = l;
        if (r < heap.length && better(heap[r]!, heap[m]!)) m = r;
        if (m === i) break;
        [heap[i], heap[m]] = [heap[m]!, heap[i]!];
        i = m;
      }
    }
    return top;
  };
  const touch = (a: number, b: number, delta: number, word: number, changed: Set<number>): void => {
    const k = key(a, b);
    pairCount.set(k, (pairCount.get(k) ?? 0) + delta);
    if (delta > 0) {
      let s = pairWords.get(k);
      if (s === undefined) pairWords.set(k, (s = new Set()));
      s.add(word);
    }
    changed.add(k);
  };
  const initial = new Set<number>();
  words.forEach((sym, wi) => {
    for (let i = 0; i + 1 < sym.length; i++) touch(sym[i]!, sym[i + 1]!, freq[wi]!, wi, initial);
  });
  for (const k of initial) push([pairCount.get(k)!, k]);

  while (tokens.length < size && heap.length > 0) {
    const [count, k] = pop()!;
    const current = pairCount.get(k) ?? 0;
    if (current !== count) {
      if (current > 0 && current < count) push([current, k]);
      continue;
    }
    if (current <= 0) continue;
    const a = Math.floor(k / SHIFT);
    const b = k % SHIFT;
    const merged = intern(tokens[a]! + tokens[b]!.slice(2));
    const changed = new Set<number>();
    for (const wi of pairWords.get(k) ?? []) {
      const sym = words[wi]!;
      let has = false;
      for (let i = 0; i + 1 < sym.length; i++) if (sym[i] === a && sym[i + 1] === b) has = true;
      if (!has) continue;
      const c = freq[wi]!;
      for (let i = 0; i + 1 < sym.length; i++) touch(sym[i]!, sym[i + 1]!, -c, wi, changed);
      const next: number[] = [];
      for (let i = 0; i < sym.length; i++) {
        if (i + 1 < sym.length && sym[i] === a && sym[i + 1] === b) {
          next.push(merged);
          i++;
        } else next.push(sym[i]!);
      }
      words[wi] = next;
      for (let i = 0; i + 1 < next.length; i++) touch(next[i]!, next[i + 1]!, c, wi, changed);
    }
    pairWords.delete(k);
    pairCount.delete(k);
    for (const ck of changed) {
      const n = pairCount.get(ck) ?? 0;
      if (n > 0) push([n, ck]);
      else pairCount.delete(ck);
    }
  }
  return tokens;
}

/** Word counts of texts under bertWords. */
export function wordCounts(texts: Iterable<string>): Map<string, number> {
  const counts = new Map<string, number>();
  for (const t of texts) for (const w of bertWords(t)) counts.set(w, (counts.get(w) ?? 0) + 1);
  return counts;
}

/** A Hugging Face tokenizer.json for a BERT WordPiece vocabulary (ids in list order; the first five are SPECIAL_TOKENS). */
export function bertTokenizerJson(vocabList: readonly string[], maxTokens = 512): Record<string, unknown> {
  SPECIAL_TOKENS.forEach((t, i) => {
    if (vocabList[i] !== t) throw new Error(`vocabulary entry ${i} must be ${t}`);
  });
  const vocab: Record<string, number> = {};
  vocabList.forEach((t, i) => (vocab[t] = i));
  return wordPieceTokenizerJson(vocab, SPECIAL_TOKENS, { direction: 'Right', max_length: maxTokens, strategy: 'LongestFirst', stride: 0 });
}

export interface BuiltEncoder {
  dir: string;
  shape: BertShape;
  parameters: number;
  modelBytes: number;
  vocabulary: number;
  weights: BertWeights;
}

/** Writes model.onnx, tokenizer.json and tokenizer_config.json for a BERT of `shape` (vocab = the learned vocabulary's size) into `dir`. */
export function writeBertEncoder(dir: string, shape: Omit<BertShape, 'vocab'>, vocabList: readonly string[], options: BertGraphOptions & { seed?: number; std?: number; biasStd?: number } = {}): BuiltEncoder {
  const full: BertShape = { ...shape, vocab: vocabList.length };
  const weights = randomBertWeights(full, options.seed ?? 1, options.std ?? 0.02, options.biasStd ?? 0);
  const bytes = bertOnnxModel(full, weights, options);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'model.onnx'), bytes);
  writeFileSync(join(dir, 'tokenizer.json'), JSON.stringify(bertTokenizerJson(vocabList, shape.maxPositions)));
  writeFileSync(join(dir, 'tokenizer_config.json'), JSON.stringify({ model_max_length: shape.maxPositions, do_lower_case: true, tokenizer_class: 'BertTokenizer' }));
  const meta = { shape: full, parameters: bertParameters(full), model_bytes: bytes.length, seed: options.seed ?? 1, weights: `random N(0, ${options.std ?? 0.02}), LayerNorm gains 1`, masked: options.mask !== false };
  writeFileSync(join(dir, 'lectern-build.json'), JSON.stringify(meta, null, 2));
  return { dir, shape: full, parameters: meta.parameters, modelBytes: bytes.length, vocabulary: vocabList.length, weights };
}

/** Title and text of every line of a BEIR corpus.jsonl. */
export function beirTexts(path: string): string[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => {
      const r = JSON.parse(l) as { title?: string; text?: string };
      return `${r.title ?? ''}\n${r.text ?? ''}`;
    });
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      out: { type: 'string', default: 'tmp/models/bert-6x384' },
      layers: { type: 'string', default: String(MINILM_L6_SHAPE.layers) },
      hidden: { type: 'string', default: String(MINILM_L6_SHAPE.hidden) },
      heads: { type: 'string', default: String(MINILM_L6_SHAPE.heads) },
      ffn: { type: 'string', default: String(MINILM_L6_SHAPE.ffn) },
      vocab: { type: 'string', default: String(MINILM_L6_SHAPE.vocab) },
      positions: { type: 'string', default: String(MINILM_L6_SHAPE.maxPositions) },
      corpus: { type: 'string', default: '/work/shared/data/ir/scifact/corpus.jsonl' },
      seed: { type: 'string', default: '1' },
    },
  });
  const t0 = performance.now();
  const counts = wordCounts(beirTexts(values.corpus!));
  const vocab = learnWordPieceVocab(counts, Number(values.vocab));
  const t1 = performance.now();
  const shape = { layers: Number(values.layers), hidden: Number(values.hidden), heads: Number(values.heads), ffn: Number(values.ffn), maxPositions: Number(values.positions), typeVocab: 2 };
  const built = writeBertEncoder(resolve(values.out!), shape, vocab, { seed: Number(values.seed) });
  const t2 = performance.now();
  process.stdout.write(
    `${JSON.stringify({ dir: built.dir, shape: built.shape, parameters: built.parameters, model_bytes: built.modelBytes, vocabulary: built.vocabulary, distinct_words: counts.size, vocab_ms: Math.round(t1 - t0), model_ms: Math.round(t2 - t1) })}\n`,
  );
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) await main();
