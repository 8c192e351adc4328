// Helpers shared by the input formats: type normalisation, dates, URI lists, line errors.
import { canonicalUri } from '../../domain/canonical-uri.js';
import type { DocumentRecord } from '../../domain/document.js';

/** A record that cannot be ingested; the message says what to fix. */
export class RecordError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RecordError';
  }
}

/** An original file named by an input record, to be copied into the blob store. */
export interface OriginalRef {
  /** Path relative to the input file. */
  path: string;
  mediaType: string | null;
  sha256: string | null;
  license: string | null;
}

/** What a format parser yields for one line. */
export interface ParsedRecord {
  record: DocumentRecord;
  originals: OriginalRef[];
}

export const asString = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v : null);
export const asStringArray = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string' && x.trim() !== '') : []);

/** Unix seconds of an ISO date or date-time (`2020-07-01`, `2018-03-12T17:18:12Z`), or null. */
export function isoToUnix(v: unknown): number | null {
  if (typeof v !== 'string' || v.length < 4) return null;
  const s = /^\d{4}$/.test(v) ? `${v}-01-01` : /^\d{4}-\d{2}$/.test(v) ? `${v}-01` : v;
  const t = Date.parse(s.length === 10 ? `${s}T00:00:00Z` : s);
  return Number.isFinite(t) ? Math.floor(t / 1000) : null;
}

/** Canonical forms of the URIs that parse; others are dropped. Order kept, duplicates removed. */
export function canonicalList(values: readonly (string | null | undefined)[]): string[] {
  const out: string[] = [];
  for (const v of values) {
    if (!v) continue;
    const c = canonicalUri(v);
    if (c && !out.includes(c)) out.push(c);
  }
  return out;
}

/**
 * Normalised document type from OpenAlex/Crossref-style type names.
 * OpenAlex `type` is preferred when it is more specific than Crossref's (preprint, review, erratum).
 */
export function normalizeType(type: string | null, crossrefType: string | null = null): string | null {
  const t = type?.toLowerCase() ?? null;
  const c = crossrefType?.toLowerCase() ?? null;
  if (t === 'preprint') return 'preprint';
  if (t === 'erratum') return 'erratum';
  if (t === 'retraction') return 'retraction';
  if (t === 'review') return 'review';
  if (t === 'editorial') return 'editorial';
  if (t === 'letter') return 'letter';
  if (t === 'paratext') return 'paratext';
  if (t === 'dissertation' || c === 'thesis' || c === 'dissertation') return 'dissertation';
  if (t === 'dataset' || c === 'dataset') return 'dataset';
  const byCrossref: Record<string, string> = {
    'journal-article': 'journal-article',
    'proceedings-article': 'proceedings-article',
    conferenceobject: 'proceedings-article',
    'posted-content': 'posted-content',
    'book-chapter': 'book-chapter',
    book: 'book',
    monograph: 'monograph',
    'edited-book': 'book',
    report: 'report',
    standard: 'standard',
  };
  if (c && byCrossref[c]) return byCrossref[c]!;
  const byType: Record<string, string> = {
    article: 'journal-article',
    'book-chapter': 'book-chapter',
    book: 'book',
    report: 'report',
    standard: 'standard',
    'peer-review': 'other',
    other: 'other',
    question: 'question',
    answer: 'answer',
    patent: 'patent',
    monograph: 'monograph',
    'journal-article': 'journal-article',
    'proceedings-article': 'proceedings-article',
    'posted-content': 'posted-content',
  };
  if (t && byType[t]) return byType[t]!;
  return t ? 'other' : null;
}

/** An empty record skeleton with every field present. */
export function blankRecord(id: string, index: DocumentRecord['index'], source: string): DocumentRecord {
  return {
    id,
    index,
    uris: [],
    title: '',
    abstract: null,
    fullText: null,
    authors: [],
    type: null,
    language: null,
    issuedAt: null,
    publisher: null,
    issns: [],
    venue: null,
    references: [],
    isRetracted: false,
    notices: [],
    license: null,
    attribution: null,
    originals: [],
    source,
    extra: {},
  };
}

/** Document ids become URL path segments: no slashes, no control characters, at most 512 chars. */
export function checkId(id: string): string {
  if (id.length === 0 || id.length > 512 || /[/\\\u0000-\u001f\u007f]/.test(id)) {
    throw new RecordError(`invalid id ${JSON.stringify(id.slice(0, 80))}: 1-512 characters, no slashes or control characters`);
  }
  return id;
}
