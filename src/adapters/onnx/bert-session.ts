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
