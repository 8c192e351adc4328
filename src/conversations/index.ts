// The conversations capability: service, answerers, classifier, and the empty model registry the
// composition root uses until provider clients are configured.
import type { ChatModelRegistry } from '../ports/chat-model.js';

export * from './conversation-service.js';
export { classify, resolveDateExpression } from './classifier.js';
export { EXTRACTIVE_MODEL_NAME } from './extractive.js';
export { anchorCitations, type Passage } from './passages.js';

/** A registry with no language models: only the extractive answerer is offered. */
export const NO_CHAT_MODELS: ChatModelRegistry = { resolve: () => null, names: () => [] };
