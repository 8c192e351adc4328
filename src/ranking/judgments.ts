// Judgments for `lectern ranking train` (docs/ranking.md, ADR 0128): relevance feedback stored by the
// community layer (each feedback carries the query of the rated search, signed in its feedback token)
// and BEIR-layout judged collections (queries.jsonl + qrels/<split>.tsv, document ids = the corpus's
// `_id`, which BEIR ingest keeps as the document id).
import type { IndexName } from '../domain/document.js';
import type { CommunityStore, StoredFeedback } from '../ports/community-store.js';
import type { SourceFiles } from '../ports/source-files.js';
import type { JudgedQuery } from './train-ranker.js';

export interface FeedbackJudgments {
  queries: JudgedQuery[];
  /** Feedback records read, used, and why the others were not. */
  records: number;
  used: number;
  withoutQuery: number;
  otherIndex: number;
  withoutRatings: number;
}

const FEEDBACK_PAGE = 1_000;

/** Reads every stored feedback with `at >= since` (paged). */
export async function readFeedback(store: Pick<CommunityStore, 'feedbackSince'>, since: number): Promise<StoredFeedback[]> {
  const out: StoredFeedback[] = [];
  let after: { at: number; accountId: number; feedbackId: string } | undefined;
  for (;;) {
    const page = await store.feedbackSince(since, FEEDBACK_PAGE, after);
    out.push(...page);
    if (page.length < FEEDBACK_PAGE) return out;
    const last = page[page.length - 1]!;
    after = { at: last.at, accountId: last.accountId, feedbackId: last.feedbackId };
  }
}

/** Same query, different spacing or case: one judged query. */
export const normalizeQuery = (q: string): string => q.normalize('NFC').trim().replace(/\s+/g, ' ').toLowerCase();

/**
 * Judged queries of one index from feedback: a feedback counts when its search covered exactly that
 * index and it carries the query (searches since ADR 0128; queries up to 1 KiB). A document's grade in
 * one feedback is its highest rating there (document or passage ratings); across feedbacks on the same
 * query (normalized: case, spacing) the grades are averaged.
 */
export function judgmentsFromFeedback(records: readonly StoredFeedback[], index: IndexName): FeedbackJudgments {
  const byQuery = new Map<string, { id: string; text: string; sums: Map<string, { sum: number; n: number }> }>();
  let used = 0;
  let withoutQuery = 0;
  let otherIndex = 0;
  let withoutRatings = 0;
  for (const r of records) {
    const body = (typeof r.body === 'object' && r.body !== null ? r.body : {}) as { query?: unknown; indexNames?: unknown; ratings?: unknown };
    if (typeof body.query !== 'string' || body.query.trim() === '') {
      withoutQuery += 1;
      continue;
    }
    const names = Array.isArray(body.indexNames) ? body.indexNames : [];
    if (names.length !== 1 || names[0] !== index) {
      otherIndex += 1;
      continue;
    }
    const best = new Map<string, number>();
    for (const raw of Array.isArray(body.ratings) ? body.ratings : []) {
      const x = raw as { documentId?: unknown; relevance?: unknown };
      if (typeof x.documentId !== 'string' || typeof x.relevance !== 'number' || !(x.relevance >= 0)) continue;
      best.set(x.documentId, Math.max(best.get(x.documentId) ?? 0, x.relevance));
    }
    if (best.size === 0) {
      withoutRatings += 1;
      continue;
    }
    used += 1;
    const key = normalizeQuery(body.query);
    let q = byQuery.get(key);
    if (!q) byQuery.set(key, (q = { id: `feedback:${byQuery.size + 1}`, text: body.query, sums: new Map() }));
    for (const [doc, grade] of best) {
      const s = q.sums.get(doc) ?? { sum: 0, n: 0 };
      s.sum += grade;
      s.n += 1;
      q.sums.set(doc, s);
    }
  }
  const queries = [...byQuery.values()].map((q) => ({ id: q.id, text: q.text, index, rels: new Map([...q.sums].map(([d, s]) => [d, s.sum / s.n])) }));
  return { queries, records: records.length, used, withoutQuery, otherIndex, withoutRatings };
}

/** Reads BEIR judged queries: `queries.jsonl` lines {_id, text} and a qrels TSV (query-id, corpus-id, score). */
export async function judgmentsFromBeir(files: SourceFiles, queriesFile: string, qrelsFile: string, index: IndexName): Promise<{ queries: JudgedQuery[]; unknownQueries: number }> {
  for (const f of [queriesFile, qrelsFile]) {
    if ((await files.kind(f)) !== 'file') throw new RangeError(`${f} not found: a BEIR directory holds queries.jsonl and qrels/<split>.tsv`);
  }
  const texts = new Map<string, string>();
  for await (const line of files.lines(queriesFile)) {
    if (line.text.trim() === '') continue;
    let o: { _id?: unknown; text?: unknown };
    try {
      o = JSON.parse(line.text) as typeof o;
    } catch {
      throw new RangeError(`${queriesFile}:${line.number}: not JSON`);
    }
    if ((typeof o._id === 'string' || typeof o._id === 'number') && typeof o.text === 'string') texts.set(String(o._id), o.text);
  }
  const rels = new Map<string, Map<string, number>>();
  for await (const line of files.lines(qrelsFile)) {
    const [q, d, s] = line.text.split('\t');
    if (line.number === 1 && s !== undefined && Number.isNaN(Number(s))) continue; // header
    if (q === undefined || d === undefined || s === undefined || line.text.trim() === '') continue;
    const grade = Number(s);
    if (!Number.isFinite(grade)) throw new RangeError(`${qrelsFile}:${line.number}: score ${JSON.stringify(s)} is not a number`);
    let m = rels.get(q);
    if (!m) rels.set(q, (m = new Map()));
    m.set(d.trim(), grade);
  }
  const queries: JudgedQuery[] = [];
  let unknownQueries = 0;
  for (const [id, m] of rels) {
    const text = texts.get(id);
    if (text === undefined) unknownQueries += 1;
    else queries.push({ id, text, index, rels: m });
  }
  return { queries, unknownQueries };
}
