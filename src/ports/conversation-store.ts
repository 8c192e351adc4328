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

/** A turn lease: who holds the conversation's turn and until when (Unix ms). */
export interface TurnLease {
  token: string;
  untilMs: number;
}

/** What a start-up repair removed. */
export interface RepairReport {
  /** Request steps left without their response (stored by a version that wrote them apart). */
  danglingRequests: number;
  /** Conversations without any step (their first turn never finished). */
  emptyConversations: number;
}

export interface ConversationStore {
  /** Throws when the id or slug exists. */
  create(c: NewConversation): Promise<ConversationRecord>;
  /**
   * A new conversation with its first turn (request at position 0, response at 1), in one transaction:
   * a crash leaves the whole conversation or nothing.
   */
  createWithTurn(c: NewConversation, request: StepData, response: StepData): Promise<ConversationRecord>;
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
  /**
   * A turn's request and response appended together, in one transaction, at the next two positions;
   * returns the response's position. A crash leaves both or neither.
   */
  appendTurn(id: string, request: StepData, response: StepData): Promise<number>;
  /** Replaces the steps at positions >= `fromPosition` by `steps` (an edit's result), in one transaction. */
  rewriteFrom(id: string, fromPosition: number, steps: readonly StepData[]): Promise<void>;
  /** Takes the turn lease when it is free or has run out (true), or leaves it (false). */
  acquireTurn(id: string, lease: TurnLease, nowMs: number): Promise<boolean>;
  /** Extends a held lease; false when it is no longer held by `lease.token`. */
  renewTurn(id: string, lease: TurnLease): Promise<boolean>;
  /** Frees the lease if `token` holds it. */
  releaseTurn(id: string, token: string): Promise<void>;
  /**
   * Start-up repair of turns interrupted by a crash, for conversations whose lease is free or has run
   * out at `nowMs` (`clearLeases`: every lease is dropped first; only for a store one process owns):
   * trailing request steps without a response are removed, and conversations left without steps.
   */
  repairInterrupted(nowMs: number, clearLeases: boolean): Promise<RepairReport>;
}
