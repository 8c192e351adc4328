// An onnxruntime CPU session over a BERT-style model (input_ids, attention_mask, optionally
// token_type_ids), shared by the text encoders and the cross-encoder: loads it with a clear error and
// refuses inputs Lectern cannot feed.
import ort from 'onnxruntime-node';

/** Opens `modelPath`; `role` names the model in errors ("an encoder", "a cross-encoder"). */
export async function openBertSession(modelPath: string, threads: number, role: string): Promise<ort.InferenceSession> {
  let session: ort.InferenceSession;
  try {
    session = await ort.InferenceSession.create(modelPath, { executionProviders: ['cpu'], intraOpNumThreads: threads, interOpNumThreads: 1, logSeverityLevel: 3 });
  } catch (e) {
    throw new Error(`ONNX model ${modelPath} cannot be loaded by onnxruntime: ${(e as Error).message}`);
  }
  const names = session.inputMetadata.map((m) => m.name);
  for (const name of names) {
    if (name !== 'input_ids' && name !== 'attention_mask' && name !== 'token_type_ids') {
      await session.release();
      throw new Error(`ONNX model ${modelPath} wants an input "${name}"; ${role} takes input_ids, attention_mask and optionally token_type_ids`);
    }
  }
  if (!names.includes('input_ids')) {
    await session.release();
    throw new Error(`ONNX model ${modelPath} has no input_ids input`);
  }
  return session;
}

/**
 * A session's runs and its release, in order: `close()` waits for the runs in flight before it releases
 * the native session (releasing under a running inference can abort the process from native code), is
 * idempotent, and a run after it fails with an error instead of reaching a released session.
 */
export class SessionRuns {
  readonly #inflight = new Set<Promise<unknown>>();
  #closing: Promise<void> | null = null;
  constructor(private readonly session: ort.InferenceSession) {}

  async run(feeds: Record<string, ort.Tensor>): Promise<ort.InferenceSession.OnnxValueMapType> {
    if (this.#closing) throw new Error('the ONNX model is closed');
    const running = this.session.run(feeds);
    this.#inflight.add(running);
    try {
      return await running;
    } finally {
      this.#inflight.delete(running);
    }
  }

  close(): Promise<void> {
    this.#closing ??= Promise.allSettled([...this.#inflight]).then(() => this.session.release());
    return this.#closing;
  }
}
