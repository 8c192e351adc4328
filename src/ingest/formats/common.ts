// Helpers shared by the input formats: type normalisation, dates, URI lists, line errors.
import { canonicalUri } from '../../domain/canonical-uri.js';
import type { DocumentRecord, NoticeKind, Relation } from '../../domain/document.js';
import { noticeKindOf } from '../../domain/work.js';

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

// Relations between works in source records (docs/works.md):
//   Crossref `relation`: {"is-preprint-of": [{"id-type": "doi", "id": "10.…"}], …}
//   Crossref `update-to`: [{"DOI": "10.…", "type": "retraction"}]  (the record is that notice)
//   Lectern JSONL `relations`: [{"type": "is-preprint-of", "uri": "doi://10.…"}]
const VERSION_RELATIONS = new Set(['is-preprint-of', 'has-preprint', 'is-version-of', 'has-version', 'is-same-as', 'is-identical-to', 'is-manifestation-of', 'has-manifestation']);
const NOTICE_RELATIONS: Readonly<Record<string, NoticeKind>> = {
  'is-retraction-of': 'retraction',
  'is-correction-of': 'erratum',
  'is-erratum-of': 'erratum',
  'is-expression-of-concern-for': 'expression_of_concern',
};
const UPDATE_TYPES: Readonly<Record<string, NoticeKind>> = {
  retraction: 'retraction',
  partial_retraction: 'retraction',
  withdrawal: 'retraction',
  removal: 'retraction',
  correction: 'erratum',
  erratum: 'erratum',
  corrigendum: 'erratum',
  expression_of_concern: 'expression_of_concern',
};

/** Canonical URI of a relation's target: `{"id-type", "id"}`, `{"uri"}`, `{"doi"}`, `{"DOI"}` or a plain string. */
function relationTarget(v: unknown): string | null {
  if (typeof v === 'string') return canonicalUri(v);
  if (typeof v !== 'object' || v === null) return null;
  const o = v as Record<string, unknown>;
  const idType = asString(o['id-type'])?.toLowerCase();
  const id = asString(o.id);
  if (id && idType === 'doi') return canonicalUri(`doi://${id}`);
  if (id && idType === 'arxiv') return canonicalUri(`arxiv://${id}`);
  if (id && (idType === 'pmid' || idType === 'pubmed')) return canonicalUri(`pubmed://${id}`);
  const doi = asString(o.DOI) ?? asString(o.doi);
  if (doi) return canonicalUri(/^10\./.test(doi) ? `doi://${doi}` : doi);
  const uri = asString(o.uri) ?? id;
  return uri ? canonicalUri(uri) : null;
}

const relationKind = (type: string): Relation['kind'] | null => {
  const t = type.toLowerCase().replace(/_/g, '-');
  return VERSION_RELATIONS.has(t) ? 'version' : (NOTICE_RELATIONS[t] ?? null);
};

/** The version and notice relations a source record states, canonical and deduplicated. */
export function parseRelations(raw: Record<string, unknown>): Relation[] {
  const out: Relation[] = [];
  const add = (kind: Relation['kind'] | null, target: unknown) => {
    const uri = kind ? relationTarget(target) : null;
    if (kind && uri && !out.some((r) => r.kind === kind && r.uri === uri)) out.push({ kind, uri });
  };
  const relation = raw.relation;
  if (typeof relation === 'object' && relation !== null && !Array.isArray(relation)) {
    for (const [type, targets] of Object.entries(relation as Record<string, unknown>)) {
      for (const t of Array.isArray(targets) ? targets : [targets]) add(relationKind(type), t);
    }
  }
  for (const key of ['update-to', 'update_to']) {
    const updates = raw[key];
    if (!Array.isArray(updates)) continue;
    for (const u of updates) {
      const type = asString((u as Record<string, unknown> | null)?.type)?.toLowerCase().replace(/[\s-]/g, '_');
      add(type ? (UPDATE_TYPES[type] ?? null) : null, u);
    }
  }
  if (Array.isArray(raw.relations)) {
    for (const r of raw.relations as unknown[]) {
      const type = asString((r as Record<string, unknown> | null)?.type);
      add(type ? relationKind(type) : null, r);
    }
  }
  return out;
}

/**
 * Sets the record's relations and, when it is an editorial notice (by type, title or a notice
 * relation), its `noticeKind`. A notice is not itself retracted: OpenAlex flags some retraction notices
 * `is_retracted`, but the flag belongs to the work they retract, so it is dropped here.
 */
export function applyWorkRelations(rec: DocumentRecord, raw: Record<string, unknown>): void {
  const relations = parseRelations(raw);
  if (relations.length > 0) rec.relations = relations;
  const kind = noticeKindOf(rec.title, rec.type) ?? relations.find((r): r is { kind: NoticeKind; uri: string } => r.kind !== 'version')?.kind ?? null;
  if (kind === null) return;
  rec.noticeKind = kind;
  rec.isRetracted = false;
  rec.notices = rec.notices.filter((n) => n.uri !== null);
}
