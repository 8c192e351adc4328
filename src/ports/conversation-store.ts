// Conversations and their steps (SQLite and PostgreSQL implementations in adapters/, one contract suite
// in test/contract/conversation-store.contract.ts). Step data is stored as JSON; positions are dense
// and 0-based per conversation.
import type { ConversationRecord, ConversationStepRecord, StepData } from '../domain/conversation.js';

/** A conversation as created: private, last changed when created. */
export type NewConversation = Omit<ConversationRecord, 'isShared' | 'updatedAt'>;

export interface ConversationPatch {
  isShared?: boolean;
  title?: string | null;
  preview?: string | null;
  query?: string | null;
  updatedAt: number;
}

export interface ConversationStore {
  /** Throws when the id or slug exists. */
  create(c: NewConversation): Promise<ConversationRecord>;
  /** By UUID or slug. */
  get(idOrSlug: string): Promise<ConversationRecord | null>;
  /** The account's conversations, newest first (creation order). */
  listForAccount(accountId: number, limit: number, offset: number): Promise<ConversationRecord[]>;
  /** null when it does not exist. */
  update(id: string, patch: ConversationPatch): Promise<ConversationRecord | null>;
  /** Deletes the conversation and its steps; false when it did not exist. */
  delete(id: string): Promise<boolean>;
  /** All steps in position order. */
  steps(id: string): Promise<ConversationStepRecord[]>;
  /** Appends a step at the next position and returns that position. */
  appendStep(id: string, step: StepData): Promise<number>;
  /** Replaces the data of the step at `position` (same kind). */
  replaceStep(id: string, position: number, step: StepData): Promise<void>;
  /** Deletes the steps at positions >= `fromPosition`. */
  truncateSteps(id: string, fromPosition: number): Promise<void>;
}
