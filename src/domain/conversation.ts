// The conversation model (camelCase domain values; http/ translates the wire shapes of the interface,
// Conversations). A conversation is an ordered list of steps, request and response alternating; a
// step's position (0-based) is its `step_id`.

/** A snippet as stored with a response (the engine's SnippetWindow, structurally). */
export interface SnippetWindow {
  field: 'title' | 'abstract' | 'body';
  text: string;
  chunkId: number | null;
  score: number;
  /** Code points in the field: [startChar, endChar), and the field's length. */
  source: { startChar: number; endChar: number; fieldLength: number };
  highlights: { start: number; end: number }[];
  sourceHighlights: { start: number; end: number }[];
}

/** The rule-based classifier's reading of a query (interface: Query). */
export interface ClassifiedQuery {
  originalQuery: string;
  reformulatedQuery: string;
  keywords: string[];
  classifiedAspects: string[];
  /** [start, end] Unix seconds (inclusive start, exclusive end), or null. */
  date: [number, number] | null;
  /** The date expression as written ("since 2020"), or null. */
  dateExpression: string | null;
  isRecent: boolean;
  isEvent: boolean;
  contentType: string | null;
  queryLanguage: string | null;
  relatedQueries: string[];
  title: string | null;
}

/** How retrieval went (interface: QueryDetails). */
export interface QueryDetailsData {
  queries: string[];
  query: string | null;
  retrieved: number;
  compared: number;
  selected: number;
  planningFallback: boolean;
  rankingFallback: boolean;
}

/** A request step as stored: the caller's API key is never part of it. */
export interface RequestStepData {
  query: string;
  modelName: string;
  /** Prompt budget in tokens, or null (the model's own window). */
  maxContextLength: number | null;
  documentIds: string[];
  /** Retrieval depth, or null (the default). */
  limit: number | null;
  /** Cap on documents handed to the answerer; null or 0: none. */
  maxModelDocuments: number | null;
  sourcesFilters: unknown;
  sourcesLiteralFilters: unknown;
  resolvedSourcesLiteralFilters: unknown;
}

/** One retrieved document of a response, by id (the document itself is read when presented). */
export interface ResponseDocument {
  documentId: string;
  /** The index the document came from (the wire `source`). */
  source: string;
  score: number;
  snippets: SnippetWindow[];
  pinned: boolean;
}

/** One inline citation marker of an answer (interface: CitationOccurrence). */
export interface CitationData {
  citationIndex: number;
  /** One-based index into the response's documents. */
  documentIndex: number;
  /** Verbatim text of the cited document (and of snippet `snippetIndex`). */
  excerpt: string;
  snippetIndex: number | null;
  /** For an excerpt of a full text: its character offset in the text (not on the wire; ADR 0242). */
  offset?: number;
  /** For an excerpt of a full text: the heading of the section it falls in, or null (not on the wire; ADR 0242). */
  section?: string | null;
}

export interface ResponseStepData {
  answer: string;
  citations: CitationData[];
  modelName: string;
  query: ClassifiedQuery;
  queryDetails: QueryDetailsData;
  documents: ResponseDocument[];
  trajectoryId: string | null;
  /** The extractive answerer's answerability of the question (0..1; not on the wire); absent for a language model. */
  answerability?: number;
  /** The answer abstained: the indexed literature does not answer the question (not on the wire). */
  abstained?: boolean;
  /** For a claim, the extractive answerer's verdict (supports, contradicts, mixed, insufficient; not on the wire, ADR 0241). */
  verdict?: 'supports' | 'contradicts' | 'mixed' | 'insufficient';
}

export type StepData = { kind: 'request'; data: RequestStepData } | { kind: 'response'; data: ResponseStepData };
export type ConversationStepRecord = StepData & { position: number };

export interface ConversationRecord {
  id: string;
  slug: string;
  accountId: number;
  title: string | null;
  preview: string | null;
  query: string | null;
  isShared: boolean;
  /** Unix seconds. */
  createdAt: number;
  updatedAt: number;
}
