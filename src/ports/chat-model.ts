// A hosted or self-hosted chat language model (OpenAI-compatible chat completions, Anthropic Messages),
// as the conversations capability sees it: one completion of a system prompt and a message list,
// optionally streamed as text deltas. Prompt building, budgeting and citation checking are the
// capability's business; implementations only speak their provider's wire format.
//
// Failures: an implementation throws AppError('upstream_timeout') when the provider does not answer in
// time, AppError('upstream_error') when it answers with an error or an unreadable body (the message
// names the provider and status, never the API key), and rethrows the signal's reason when aborted.

export interface ChatMessage {
  role: 'user' | 'assistant';
  content: string;
}

export interface ChatRequest {
  /** The provider's model name (after any configured alias mapping). */
  model: string;
  system: string;
  messages: readonly ChatMessage[];
  /** Upper bound on generated tokens. */
  maxOutputTokens: number;
  /** The caller's key for this one call (never stored or logged); null: the configured key, if any. */
  apiKey: string | null;
  /** Aborts the call (the client went away). */
  signal: AbortSignal;
  /** Called with each text delta when the provider streams; absent: a non-streamed call is fine. */
  onDelta?: (text: string) => void;
}

export interface ChatResult {
  /** The whole generated text (the concatenation of the deltas when streamed). */
  text: string;
  /** The model the provider says answered. */
  model: string;
  inputTokens: number | null;
  outputTokens: number | null;
}

export interface ChatModel {
  complete(request: ChatRequest): Promise<ChatResult>;
}

/** A model this server offers under a public name (`llm_config.model_name`). */
export interface OfferedChatModel {
  model: ChatModel;
  /** The name sent to the provider. */
  providerModel: string;
  /** The provider's context window in tokens (the prompt budget when the request gives none). */
  contextTokens: number;
}

/** The chat models configured on this server, by public name. */
export interface ChatModelRegistry {
  /** The model behind a public name, or null when this server does not offer it. */
  resolve(modelName: string): OfferedChatModel | null;
  /** Public names of the configured models (the 422 for an unknown model lists them). */
  names(): readonly string[];
}
