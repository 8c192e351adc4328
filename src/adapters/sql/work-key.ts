// Work-key assignment, shared by the SQL document stores so SQLite and PostgreSQL group records into
// works identically (docs/adr/0011-work-keys-and-change-sequence.md).
//
// Records sharing an identity key (canonical-uri.ts `identityKeys`) are one work. When a record is
// written, it joins every work it links to, and those works merge into one: the key of the merged work
// is the smallest of the candidate keys, so the outcome does not depend on the order records arrive in
// (a preprint and its published version end with the same key whichever is ingested first). Merges are
// never undone: a record that stops carrying a shared URI keeps its work key (splitting would need
// the whole link graph, and a wrong split is worse for deduplication than a stale merge).

/** What a store must do for one written record. */
export interface WorkKeyDecision {
  /** The work key the record gets. */
  workKey: string;
  /** Other work keys whose live records (except this one) must be relabelled to `workKey` and re-sequenced. */
  absorbed: string[];
}

/**
 * @param docId the record's id (its own key when it links to nothing)
 * @param linked work keys of live records sharing an identity key with it
 * @param previous the record's current work key when it is live in the store, else null
 */
export function assignWorkKey(docId: string, linked: Iterable<string>, previous: string | null): WorkKeyDecision {
  const candidates = new Set<string>(linked);
  candidates.add(docId);
  if (previous !== null) candidates.add(previous);
  // Code-unit order, the same as SQLite BINARY and PostgreSQL COLLATE "C" for the ids we see.
  const sorted = [...candidates].sort();
  return { workKey: sorted[0]!, absorbed: sorted.slice(1) };
}
