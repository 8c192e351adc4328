// A cross-encoder: a model that reads a query and a text together and scores how well the text answers
// the query (a reranker such as ms-marco-MiniLM or bge-reranker). Implementations run a model an
// operator placed on disk (adapters/onnx); nothing is ever downloaded. Higher scores are better; the
// scale is the model's (logits).
//
// Failures: loading throws an Error naming the file and what to fix; score rejects only on a runtime error.

export interface CrossEncoderInfo {
  /** SHA-256 (hex) over the model's weights and tokenizer files. */
  id: string;
  /** Longest token sequence fed to the model (query and text together); longer pairs lose the text's tail. */
  maxTokens: number;
  /** Where the model was loaded from. */
  source: string;
}

export interface CrossEncoder {
  readonly info: CrossEncoderInfo;
  /** One score per text, in order, for the pairs (query, text). */
  score(query: string, texts: readonly string[]): Promise<Float64Array>;
  close(): Promise<void>;
}

export interface CrossEncoderOptions {
  /** Directory holding model.onnx and tokenizer.json. */
  dir: string;
  maxTokens?: number;
  /** Pairs per model call (default 16). */
  batchSize?: number;
  threads?: number;
}

export type CrossEncoderLoader = (options: CrossEncoderOptions) => Promise<CrossEncoder>;
