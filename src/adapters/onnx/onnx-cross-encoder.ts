// The CrossEncoder port over a reranker an operator placed in a directory (docs/ranking.md, ADR 0123):
// `model.onnx` run by onnxruntime-node on the CPU and `tokenizer.json` read by @huggingface/tokenizers,
// as the ONNX text encoder does (ADR 0104). The pair (query, text) is tokenized with the tokenizer's
// pair template ([CLS] query [SEP] text [SEP] for BERT-style models, token_type_ids 0 then 1); a pair
// longer than maxTokens loses the text's tail. Output: `logits` (or the first output) of shape [batch]
// or [batch, 1] is the score; [batch, 2] (a two-class head) scores logit 1 - logit 0.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Tokenizer } from '@huggingface/tokenizers';
import ort from 'onnxruntime-node';
import { openBertSession, SessionRuns } from './bert-session.js';
import type { CrossEncoder, CrossEncoderInfo, CrossEncoderOptions } from '../../ports/cross-encoder.js';

const DEFAULT_MAX_TOKENS = 512;

export async function loadOnnxCrossEncoder(options: CrossEncoderOptions): Promise<OnnxCrossEncoder> {
  const dir = options.dir;
  const modelPath = join(dir, 'model.onnx');
  const tokenizerPath = join(dir, 'tokenizer.json');
  for (const [p, what] of [[modelPath, 'ONNX weights'], [tokenizerPath, 'tokenizer']] as const) {
    if (!existsSync(p)) throw new Error(`cross-encoder directory ${dir} has no ${p.slice(dir.length + 1)} (${what}); see docs/ranking.md for how to place a reranker`);
  }
  const modelBytes = readFileSync(modelPath);
  const tokenizerBytes = readFileSync(tokenizerPath);
  let tokenizerJson: Record<string, unknown>;
  let tokenizer: Tokenizer;
  const configPath = join(dir, 'tokenizer_config.json');
  let tokenizerConfig: Record<string, unknown> = {};
  try {
    tokenizerJson = JSON.parse(tokenizerBytes.toString('utf8')) as Record<string, unknown>;
    if (existsSync(configPath)) tokenizerConfig = JSON.parse(readFileSync(configPath, 'utf8')) as Record<string, unknown>;
    tokenizer = new Tokenizer(tokenizerJson, tokenizerConfig);
  } catch (e) {
    throw new Error(`tokenizer ${tokenizerPath} is not a tokenizer Lectern can read: ${(e as Error).message}`);
  }
  const configuredMax = typeof tokenizerConfig['model_max_length'] === 'number' ? tokenizerConfig['model_max_length'] : DEFAULT_MAX_TOKENS;
  const maxTokens = options.maxTokens ?? Math.min(DEFAULT_MAX_TOKENS, configuredMax);
  if (!Number.isInteger(maxTokens) || maxTokens < 4) throw new Error(`cross-encoder maxTokens must be an integer >= 4 (got ${maxTokens})`);
  const session = await openBertSession(modelPath, options.threads ?? 1, 'a cross-encoder');
  const inputs = new Map(session.inputMetadata.map((m) => [m.name, m]));
  const out = session.outputMetadata.find((o) => o.name === 'logits') ?? session.outputMetadata[0];
  if (out === undefined || !out.isTensor || out.type !== 'float32' || out.shape.length < 1 || out.shape.length > 2) {
    await session.release();
    throw new Error(`ONNX model ${modelPath} has no float32 output of shape [batch] or [batch, classes] (a reranker's logits)`);
  }
  const int32 = (name: string) => {
    const m = inputs.get(name);
    return m !== undefined && m.isTensor && m.type === 'int32';
  };
  const padding = tokenizerJson['padding'] as { pad_id?: unknown } | null | undefined;
  const padId = typeof padding?.pad_id === 'number' ? padding.pad_id : (tokenizer.token_to_id('[PAD]') ?? tokenizer.token_to_id('<pad>') ?? 0);
  const h = createHash('sha256');
  h.update(createHash('sha256').update(modelBytes).digest('hex'));
  h.update(createHash('sha256').update(tokenizerBytes).digest('hex'));
  h.update(JSON.stringify({ maxTokens }));
  const enc = new OnnxCrossEncoder(session, tokenizer, {
    outputName: out.name,
    hasMask: inputs.has('attention_mask'),
    hasTypes: inputs.has('token_type_ids'),
    int32: { ids: int32('input_ids'), mask: int32('attention_mask'), types: int32('token_type_ids') },
    padId,
    batchSize: options.batchSize ?? 16,
    info: { id: h.digest('hex'), maxTokens, source: dir },
  });
  // proves the model runs before the server relies on it
  await enc.score('probe', ['probe']);
  return enc;
}

interface Settings {
  outputName: string;
  hasMask: boolean;
  hasTypes: boolean;
  int32: { ids: boolean; mask: boolean; types: boolean };
  padId: number;
  batchSize: number;
  info: CrossEncoderInfo;
}

export class OnnxCrossEncoder implements CrossEncoder {
  readonly #runs: SessionRuns;
  constructor(
    session: ort.InferenceSession,
    private readonly tokenizer: Tokenizer,
    private readonly s: Settings,
  ) {
    this.#runs = new SessionRuns(session);
  }

  get info(): CrossEncoderInfo {
    return this.s.info;
  }

  /** Token ids and type ids of a pair, the text cut so that the pair fits maxTokens (the last token kept). */
  pair(query: string, text: string): { ids: number[]; types: number[] } {
    const e = this.tokenizer.encode(query, { text_pair: text, return_token_type_ids: true });
    const ids = e.ids;
    const types = e.token_type_ids ?? ids.map(() => 0);
    const max = this.s.info.maxTokens;
    if (ids.length <= max) return { ids, types };
    return { ids: [...ids.slice(0, max - 1), ids[ids.length - 1]!], types: [...types.slice(0, max - 1), types[types.length - 1]!] };
  }

  async score(query: string, texts: readonly string[]): Promise<Float64Array> {
    const pairs = texts.map((t) => this.pair(query, t));
    const order = pairs.map((_, i) => i).sort((a, b) => pairs[a]!.ids.length - pairs[b]!.ids.length);
    const out = new Float64Array(texts.length);
    for (let at = 0; at < order.length; at += this.s.batchSize) {
      const batch = order.slice(at, at + this.s.batchSize);
      const scores = await this.#run(batch.map((i) => pairs[i]!));
      batch.forEach((i, j) => (out[i] = scores[j]!));
    }
    return out;
  }

  async #run(seqs: { ids: number[]; types: number[] }[]): Promise<number[]> {
    const b = seqs.length;
    const t = Math.max(1, ...seqs.map((s) => s.ids.length));
    const ids = new Array<number>(b * t);
    const mask = new Uint8Array(b * t);
    const types = new Uint8Array(b * t);
    seqs.forEach((s, r) => {
      for (let c = 0; c < t; c++) {
        const real = c < s.ids.length;
        ids[r * t + c] = real ? s.ids[c]! : this.s.padId;
        mask[r * t + c] = real ? 1 : 0;
        types[r * t + c] = real ? s.types[c]! : 0;
      }
    });
    const tensor = (i32: boolean, values: ArrayLike<number>): ort.Tensor =>
      i32 ? new ort.Tensor('int32', Int32Array.from(values), [b, t]) : new ort.Tensor('int64', BigInt64Array.from(Array.from(values, (v) => BigInt(v))), [b, t]);
    const feeds: Record<string, ort.Tensor> = { input_ids: tensor(this.s.int32.ids, ids) };
    if (this.s.hasMask) feeds['attention_mask'] = tensor(this.s.int32.mask, mask);
    if (this.s.hasTypes) feeds['token_type_ids'] = tensor(this.s.int32.types, types);
    const result = await this.#runs.run(feeds);
    const o = result[this.s.outputName];
    if (o === undefined) throw new Error(`ONNX model output ${this.s.outputName} is missing from the run's results`);
    const data = o.data as Float32Array;
    const classes = o.dims.length === 2 ? o.dims[1]! : 1;
    const scores: number[] = [];
    for (let r = 0; r < b; r++) scores.push(classes === 2 ? data[r * 2 + 1]! - data[r * 2]! : data[r * classes]!);
    return scores;
  }

  close(): Promise<void> {
    return this.#runs.close();
  }
}
