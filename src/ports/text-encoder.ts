// A text encoder: a model that turns texts into dense vectors (a bi-encoder such as bge-small or
// e5-small). Implementations run a model an operator placed on disk (adapters/onnx); nothing is ever
// downloaded. The vectors are unit length (L2-normalized), so a dot product is a cosine.
//
// Failures: loading throws an Error naming the file and what to fix (missing model.onnx or
// tokenizer.json, an input or output the encoder cannot use); encode rejects only on a runtime error.

export interface TextEncoderInfo {
  /** SHA-256 (hex) over the model's weights and tokenizer files: what the index records with its vectors. */
  id: string;
  /** Vector length. */
  dims: number;
  /** Longest token sequence fed to the model; longer texts are truncated (special tokens kept). */
  maxTokens: number;
  /** How token vectors become one vector: masked mean, the first ([CLS]) token, or the model's own pooled output. */
  pooling: 'mean' | 'cls' | 'model';
  /** Where the model was loaded from (for status and logs). */
  source: string;
}

export interface TextEncoder {
  readonly info: TextEncoderInfo;
  /**
   * Encodes texts in batches; one unit Float32Array of `info.dims` per text, in order. `kind` picks the
   * model's prefix for queries or documents where it wants one (e5: "query: " / "passage: ").
   */
  encode(texts: readonly string[], kind: 'query' | 'document'): Promise<Float32Array[]>;
  /** Frees the runtime session. */
  close(): Promise<void>;
}

/** Where an encoder model lies and how to run it (docs/models.md, "Operator-supplied ONNX encoders"). */
export interface TextEncoderOptions {
  /** Directory holding model.onnx and tokenizer.json (optionally tokenizer_config.json, 1_Pooling/config.json). */
  dir: string;
  /** Longest token sequence (default: tokenizer_config's model_max_length, at most 512). */
  maxTokens?: number;
  /** Texts per model call (default 16). */
  batchSize?: number;
  /** Pooling of token vectors (default: from 1_Pooling/config.json, else `mean`; ignored when the model outputs one vector per text). */
  pooling?: 'mean' | 'cls';
  /** Prefix put before queries / documents (e5: "query: " and "passage: "; bge: none needed). */
  queryPrefix?: string;
  documentPrefix?: string;
  /** Threads of the runtime (default 1: the search server shares its cores). */
  threads?: number;
}

/** Loads the encoder an operator placed in a directory (throws an Error saying what to fix). */
export type TextEncoderLoader = (options: TextEncoderOptions) => Promise<TextEncoder>;

/** A sparse vector over a model's vocabulary: token ids with their weights, strongest first. */
export interface SparseVector {
  ids: Uint32Array;
  weights: Float32Array;
}

export interface SparseTextEncoderInfo {
  /** SHA-256 (hex) over the weights, the tokenizer and the settings that change the vectors. */
  id: string;
  /** Vocabulary size (the model's logits per token). */
  vocabulary: number;
  maxTokens: number;
  source: string;
}

/**
 * A learned sparse encoder (SPLADE-style: a masked-language-model head whose logits are turned into one
 * weight per vocabulary token, max over the text's tokens of log(1 + relu(logit))). Implementations run
 * a model an operator placed on disk; nothing is downloaded.
 */
export interface SparseTextEncoder {
  readonly info: SparseTextEncoderInfo;
  /** One sparse vector per text (weights > 0 only, strongest first). */
  encodeSparse(texts: readonly string[], kind: 'query' | 'document'): Promise<SparseVector[]>;
  /** The vocabulary entry of a token id (e.g. "heart", "##s"); null for special tokens and unknown ids. */
  token(id: number): string | null;
  close(): Promise<void>;
}

/** Loads the sparse encoder an operator placed in a directory (pooling is ignored: always the SPLADE max-pool). */
export type SparseTextEncoderLoader = (options: TextEncoderOptions) => Promise<SparseTextEncoder>;
