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
