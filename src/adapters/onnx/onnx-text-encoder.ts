// The TextEncoder port over a model an operator placed in a directory (docs/models.md, ADR 0104):
// `model.onnx` run by onnxruntime-node on the CPU (its runtime ships inside the npm package; Lectern's
// .npmrc skips the package's optional CUDA download), `tokenizer.json` read by @huggingface/tokenizers
// (the Hugging Face tokenizer format; no tokenizer is written here). Optional files:
// `tokenizer_config.json` (model_max_length) and sentence-transformers' `1_Pooling/config.json` (which
// pooling the model was trained with). Nothing is downloaded.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Tokenizer } from '@huggingface/tokenizers';
import ort from 'onnxruntime-node';
import { openBertSession, SessionRuns } from './bert-session.js';
import type { SparseTextEncoder, SparseVector, TextEncoder, TextEncoderInfo, TextEncoderOptions } from '../../ports/text-encoder.js';


const MODEL = 'model.onnx';
const TOKENIZER = 'tokenizer.json';
const TOKENIZER_CONFIG = 'tokenizer_config.json';
const POOLING_CONFIG = join('1_Pooling', 'config.json');
const DEFAULT_MAX_TOKENS = 512;

const readJson = (path: string, what: string): Record<string, unknown> => {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  } catch (e) {
    throw new Error(`${what} ${path} cannot be read as JSON: ${(e as Error).message}`);
  }
};

/** The pooling a sentence-transformers export declares, if it declares one we support. */
function declaredPooling(dir: string): 'mean' | 'cls' | null {
  const path = join(dir, POOLING_CONFIG);
  if (!existsSync(path)) return null;
  const c = readJson(path, 'pooling config');
  if (c['pooling_mode_cls_token'] === true) return 'cls';
  if (c['pooling_mode_mean_tokens'] === true) return 'mean';
  throw new Error(`pooling config ${path} asks for a pooling Lectern does not support (only mean and cls tokens); set the pooling option`);
}

/** Loads the encoder in `dir`; throws an Error naming what is missing or unusable. */
export function loadOnnxTextEncoder(options: TextEncoderOptions): Promise<OnnxTextEncoder> {
  return loadOnnx(options, 'dense');
}

/**
 * Loads a SPLADE-style sparse encoder in `dir`: a masked-language-model export whose output `logits`
 * (or its first output) is [batch, tokens, vocabulary]; a text's weight for token v is the max over its
 * (unmasked) tokens of log(1 + relu(logit_v)).
 */
export async function loadOnnxSparseEncoder(options: TextEncoderOptions): Promise<OnnxSparseEncoder> {
  const inner = await loadOnnx(options, 'splade');
  return new OnnxSparseEncoder(inner);
}

/** The sparse encoder over an encoder whose pooling is the SPLADE max-pool (vectors of vocabulary size). */
export class OnnxSparseEncoder implements SparseTextEncoder {
  constructor(private readonly inner: OnnxTextEncoder) {}

  get info() {
    const i = this.inner.info;
    return { id: i.id, vocabulary: i.dims, maxTokens: i.maxTokens, source: i.source };
  }

  async encodeSparse(texts: readonly string[], kind: 'query' | 'document'): Promise<SparseVector[]> {
    const dense = await this.inner.encode(texts, kind);
    return dense.map((v) => {
      const nz: number[] = [];
      for (let i = 0; i < v.length; i++) if (v[i]! > 0) nz.push(i);
      nz.sort((a, b) => v[b]! - v[a]! || a - b);
      return { ids: Uint32Array.from(nz), weights: Float32Array.from(nz, (i) => v[i]!) };
    });
  }

  token(id: number): string | null {
    return this.inner.tokenString(id);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

async function loadOnnx(options: TextEncoderOptions, kind: 'dense' | 'splade'): Promise<OnnxTextEncoder> {
  const dir = options.dir;
  const modelPath = join(dir, MODEL);
  const tokenizerPath = join(dir, TOKENIZER);
  for (const [p, what] of [[modelPath, 'ONNX weights'], [tokenizerPath, 'tokenizer']] as const) {
    if (!existsSync(p)) throw new Error(`encoder model directory ${dir} has no ${p.slice(dir.length + 1)} (${what}); see docs/models.md for how to place a model`);
  }
  const modelBytes = readFileSync(modelPath);
  const tokenizerBytes = readFileSync(tokenizerPath);
  const tokenizerJson = JSON.parse(tokenizerBytes.toString('utf8')) as Record<string, unknown>;
  const configPath = join(dir, TOKENIZER_CONFIG);
  const tokenizerConfig = existsSync(configPath) ? readJson(configPath, 'tokenizer config') : {};
  let tokenizer: Tokenizer;
  try {
    tokenizer = new Tokenizer(tokenizerJson, tokenizerConfig);
  } catch (e) {
    throw new Error(`tokenizer ${tokenizerPath} is not a tokenizer Lectern can read: ${(e as Error).message}`);
  }
  const configuredMax = typeof tokenizerConfig['model_max_length'] === 'number' ? tokenizerConfig['model_max_length'] : DEFAULT_MAX_TOKENS;
  const maxTokens = options.maxTokens ?? Math.min(DEFAULT_MAX_TOKENS, configuredMax);
  if (!Number.isInteger(maxTokens) || maxTokens < 2) throw new Error(`encoder maxTokens must be an integer >= 2 (got ${maxTokens})`);

  const session = await openBertSession(modelPath, options.threads ?? 1, 'an encoder');
  const inputs = new Map(session.inputMetadata.map((m) => [m.name, m]));
  const int32 = (name: string): boolean => {
    const m = inputs.get(name);
    return m !== undefined && m.isTensor && m.type === 'int32';
  };

  // The output: a pooled sentence vector if the model has one, else the token vectors (last_hidden_state).
  const outputs = session.outputMetadata;
  const pick =
    kind === 'splade'
      ? (outputs.find((o) => o.name === 'logits') ?? outputs[0])
      : (outputs.find((o) => o.name === 'sentence_embedding') ?? outputs.find((o) => o.name === 'last_hidden_state') ?? outputs[0]);
  if (kind === 'splade' && (pick === undefined || !pick.isTensor || pick.type !== 'float32' || pick.shape.length !== 3)) {
    await session.release();
    throw new Error(`ONNX model ${modelPath} has no float32 output of shape [batch, tokens, vocabulary] (a SPLADE model's MLM logits)`);
  }
  if (pick === undefined || !pick.isTensor || pick.type !== 'float32' || (pick.shape.length !== 2 && pick.shape.length !== 3)) {
    await session.release();
    throw new Error(`ONNX model ${modelPath} has no float32 output of shape [batch, dims] or [batch, tokens, dims]`);
  }
  const pooling: Pooling = kind === 'splade' ? 'splade' : pick.shape.length === 2 ? 'model' : (options.pooling ?? declaredPooling(dir) ?? 'mean');

  const queryPrefix = options.queryPrefix ?? '';
  const documentPrefix = options.documentPrefix ?? '';
  // The id covers everything that changes the vectors: weights, tokenizer, pooling, prefixes, truncation.
  const h = createHash('sha256');
  h.update(createHash('sha256').update(modelBytes).digest('hex'));
  h.update(createHash('sha256').update(tokenizerBytes).digest('hex'));
  h.update(JSON.stringify({ pooling, queryPrefix, documentPrefix, maxTokens }));
  const id = h.digest('hex');

  const specialIds = new Set<number>();
  for (const [tid, tok] of tokenizer.get_added_tokens_decoder()) if (tok.special) specialIds.add(tid);
  const padding = tokenizerJson['padding'] as { pad_id?: unknown } | null | undefined;
  const padId =
    typeof padding?.pad_id === 'number'
      ? padding.pad_id
      : tokenizer.token_to_id('[PAD]') ?? tokenizer.token_to_id('<pad>') ?? 0;

  const encoder = new OnnxTextEncoder(session, tokenizer, {
    outputName: pick.name,
    hasAttentionMask: inputs.has('attention_mask'),
    hasTokenTypes: inputs.has('token_type_ids'),
    int32: { ids: int32('input_ids'), mask: int32('attention_mask'), types: int32('token_type_ids') },
    padId,
    specialIds,
    queryPrefix,
    documentPrefix,
    batchSize: options.batchSize ?? 16,
    info: { id, dims: 0, maxTokens, pooling, source: dir },
  });
  // Probe once: learns the vector length and proves the model runs before the server relies on it.
  const [probe] = await encoder.encode(['probe'], 'query');
  encoder.setDims(probe!.length);
  return encoder;
}

type Pooling = TextEncoderInfo['pooling'] | 'splade';

interface EncoderSettings {
  outputName: string;
  hasAttentionMask: boolean;
  hasTokenTypes: boolean;
  /** Inputs the model declares as int32 (the usual exports take int64). */
  int32: { ids: boolean; mask: boolean; types: boolean };
  padId: number;
  specialIds: Set<number>;
  queryPrefix: string;
  documentPrefix: string;
  batchSize: number;
  info: Omit<TextEncoderInfo, 'pooling'> & { pooling: Pooling };
}

export class OnnxTextEncoder implements TextEncoder {
  #info: Omit<TextEncoderInfo, 'pooling'> & { pooling: Pooling };
  readonly #runs: SessionRuns;
  constructor(
    session: ort.InferenceSession,
    private readonly tokenizer: Tokenizer,
    private readonly s: EncoderSettings,
  ) {
    this.#info = s.info;
    this.#runs = new SessionRuns(session);
  }

  get info(): TextEncoderInfo {
    return this.#info as TextEncoderInfo;
  }

  /** The vocabulary entry of a token id; null for special tokens and unknown ids. */
  tokenString(id: number): string | null {
    if (this.s.specialIds.has(id)) return null;
    return this.tokenizer.id_to_token(id) ?? null;
  }

  /** @internal set once by the loader after its probe */
  setDims(dims: number): void {
    this.#info = Object.freeze({ ...this.#info, dims });
  }

  /** Token ids of one text, truncated to maxTokens keeping a trailing special token ([SEP], </s>). */
  tokenIds(text: string): number[] {
    const ids = this.tokenizer.encode(text).ids;
    const max = this.#info.maxTokens;
    if (ids.length <= max) return ids;
    const last = ids[ids.length - 1]!;
    return this.s.specialIds.has(last) ? [...ids.slice(0, max - 1), last] : ids.slice(0, max);
  }

  async encode(texts: readonly string[], kind: 'query' | 'document'): Promise<Float32Array[]> {
    const prefix = kind === 'query' ? this.s.queryPrefix : this.s.documentPrefix;
    const tokenized = texts.map((t) => this.tokenIds(prefix + t));
    // batches of similar lengths pad less
    const order = tokenized.map((_, i) => i).sort((a, b) => tokenized[a]!.length - tokenized[b]!.length);
    const out = new Array<Float32Array>(texts.length);
    for (let at = 0; at < order.length; at += this.s.batchSize) {
      const batch = order.slice(at, at + this.s.batchSize);
      const vectors = await this.#run(batch.map((i) => tokenized[i]!));
      batch.forEach((i, j) => (out[i] = vectors[j]!));
    }
    return out;
  }

  async #run(seqs: number[][]): Promise<Float32Array[]> {
    const b = seqs.length;
    const t = Math.max(1, ...seqs.map((s) => s.length));
    const ids = new Array<number>(b * t);
    const maskNum = new Uint8Array(b * t);
    seqs.forEach((s, r) => {
      for (let c = 0; c < t; c++) {
        const real = c < s.length;
        ids[r * t + c] = real ? s[c]! : this.s.padId;
        maskNum[r * t + c] = real ? 1 : 0;
      }
    });
    const tensor = (int32: boolean, values: ArrayLike<number>): ort.Tensor =>
      int32 ? new ort.Tensor('int32', Int32Array.from(values), [b, t]) : new ort.Tensor('int64', BigInt64Array.from(Array.from(values, (v) => BigInt(v))), [b, t]);
    const feeds: Record<string, ort.Tensor> = { input_ids: tensor(this.s.int32.ids, ids) };
    if (this.s.hasAttentionMask) feeds['attention_mask'] = tensor(this.s.int32.mask, maskNum);
    if (this.s.hasTokenTypes) feeds['token_type_ids'] = tensor(this.s.int32.types, new Uint8Array(b * t));
    const result = await this.#runs.run(feeds);
    const output = result[this.s.outputName];
    if (output === undefined) throw new Error(`ONNX model output ${this.s.outputName} is missing from the run's results`);
    const data = output.data as Float32Array;
    const dims = output.dims;
    const vectors: Float32Array[] = [];
    if (dims.length === 2) {
      const h = dims[1]!;
      for (let r = 0; r < b; r++) vectors.push(normalize(data.slice(r * h, (r + 1) * h)));
      return vectors;
    }
    const [, tokens, h] = dims as [number, number, number];
    if (this.#info.pooling === 'splade') {
      // SPLADE: max over unmasked tokens of log(1 + relu(logit)); not normalized (weights are the vector)
      for (let r = 0; r < b; r++) {
        const v = new Float32Array(h);
        for (let c = 0; c < tokens; c++) {
          if (maskNum[r * t + c] === 0) continue;
          const base = (r * tokens + c) * h;
          for (let d = 0; d < h; d++) {
            const x = data[base + d]!;
            if (x > 0) {
              const w = Math.log1p(x);
              if (w > v[d]!) v[d] = w;
            }
          }
        }
        vectors.push(v);
      }
      return vectors;
    }
    for (let r = 0; r < b; r++) {
      const v = new Float32Array(h);
      if (this.#info.pooling === 'cls') {
        v.set(data.subarray(r * tokens * h, r * tokens * h + h));
      } else {
        let n = 0;
        for (let c = 0; c < tokens; c++) {
          if (maskNum[r * t + c] === 0) continue;
          n++;
          const base = (r * tokens + c) * h;
          for (let d = 0; d < h; d++) v[d]! += data[base + d]!;
        }
        if (n > 0) for (let d = 0; d < h; d++) v[d]! /= n;
      }
      vectors.push(normalize(v));
    }
    return vectors;
  }

  close(): Promise<void> {
    return this.#runs.close();
  }
}

/** L2-normalizes in place (a zero vector stays zero). */
function normalize(v: Float32Array): Float32Array {
  let s = 0;
  for (let i = 0; i < v.length; i++) s += v[i]! * v[i]!;
  if (s > 0) {
    const k = 1 / Math.sqrt(s);
    for (let i = 0; i < v.length; i++) v[i]! *= k;
  }
  return v;
}
