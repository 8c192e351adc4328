// Parses raw query text into scored words and required phrases. Quoted spans use straight "…", curly
// “…” (or „…“) and guillemets «…» / »…«; an unclosed quote is treated as a separator. Every span goes
// through the same analyzer as documents, once per query language; the stems of one token across
// languages become alternatives of one clause (a BM25F synonym clause: tf summed, df the maximum).
import { analyzerFor } from './analyzer.js';
import { normalizeLanguage } from './stemmers.js';
import { queryStopwordsFor } from './stopwords.js';

/** One scored word (a clause): its alternative index terms (one per distinct stem across languages). */
export interface QueryWord {
  terms: string[];
  /** Clause weight (1 for words; 0.5 for the joined form of a compound and for words of 1-2 letters). */
  weight: number;
  /** The surface text of the word as typed (for spelling correction). */
  surface: string;
  /** Offsets of the word in the raw query (UTF-16 code units). */
  start: number;
  end: number;
  /** Inside a quoted phrase. */
  quoted: boolean;
}

/** One slot of a phrase: its alternatives and its position relative to the first slot. */
export interface PhraseSlot {
  terms: string[];
  offset: number;
}

/** A required ordered-token phrase. */
export interface QueryPhrase {
  slots: PhraseSlot[];
  text: string;
}

/** A parsed query. */
export interface ParsedQuery {
  raw: string;
  languages: string[];
  words: QueryWord[];
  phrases: QueryPhrase[];
  /** Every index term of the query (for highlighting). */
  highlightTerms: Set<string>;
}

/** Weight of the joined form of a hyphenated compound relative to a word. */
export const JOINED_WEIGHT = 0.5;

/**
 * Weight of a word of one or two letters (no digits): mostly ambiguous abbreviations ("uk", "hi", "ex") or
 * letters split from identifiers ("p" of "p53", "a" of "HNF4A"), as weak evidence as a joined form.
 */
export const SHORT_WORD_WEIGHT = 0.5;

function isShortWord(term: string): boolean {
  if (term.length > 2) return false;
  for (let i = 0; i < term.length; i++) {
    const c = term.charCodeAt(i);
    if (c >= 48 && c <= 57) return false;
  }
  return true;
}

const OPEN_CLOSE: Record<string, string> = { '"': '"', '“': '”', '„': '“', '«': '»', '»': '«', '”': '”' };

interface Span {
  text: string;
  start: number;
  quoted: boolean;
}

function splitQuotes(raw: string): Span[] {
  const spans: Span[] = [];
  let i = 0;
  let plainStart = 0;
  while (i < raw.length) {
    const ch = raw[i]!;
    const close = OPEN_CLOSE[ch];
    if (close !== undefined) {
      const j = raw.indexOf(close, i + 1);
      if (j > i) {
        if (i > plainStart) spans.push({ text: raw.slice(plainStart, i), start: plainStart, quoted: false });
        spans.push({ text: raw.slice(i + 1, j), start: i + 1, quoted: true });
        i = j + 1;
        plainStart = i;
        continue;
      }
    }
    i++;
  }
  if (plainStart < raw.length) spans.push({ text: raw.slice(plainStart), start: plainStart, quoted: false });
  return spans;
}

/**
 * Parses `raw` for the given query languages (ISO 639-1; empty -> `defaultLanguage`; at most 4 used).
 */
export function parseQuery(raw: string, languages: readonly string[] | null | undefined, defaultLanguage: string): ParsedQuery {
  const parsed = parseWith(raw, languages, defaultLanguage, true);
  // a query made only of query-side stopwords ("what can we do") keeps them
  return parsed.words.length === 0 && parsed.phrases.length === 0 ? parseWith(raw, languages, defaultLanguage, false) : parsed;
}

const JOINER_RE = /[\p{L}\p{N}\p{M}\-\u2010\u2011]/u;

/** Whether the character at `i` ties a token to its neighbour (a hyphen or a word character): a compound part. */
function joinsAt(text: string, i: number): boolean {
  return i >= 0 && i < text.length && JOINER_RE.test(text[i]!);
}

function parseWith(raw: string, languages: readonly string[] | null | undefined, defaultLanguage: string, queryStops: boolean): ParsedQuery {
  let langs = (languages ?? []).map(normalizeLanguage).filter((l) => l.length > 0);
  langs = [...new Set(langs)].slice(0, 4);
  if (langs.length === 0) langs = [normalizeLanguage(defaultLanguage)];
  const analyzers = langs.map(analyzerFor);
  const words: QueryWord[] = [];
  const phrases: QueryPhrase[] = [];
  const highlight = new Set<string>();
  const seen = new Map<string, QueryWord>();
  const qstops = queryStopwordsFor(langs[0]!);
  for (const span of splitQuotes(raw)) {
    // token streams per language align 1:1 (segmentation is language independent)
    const streams = analyzers.map((a) => {
      const toks: { term: string | null; pos: number; joined: boolean; s: number; e: number }[] = [];
      a.analyze(span.text, (term, pos, _sc, _ec, s, e, joined) => toks.push({ term, pos, joined, s, e }));
      return toks;
    });
    const base = streams[0]!;
    const byKey = streams.map((st) => new Map(st.map((t) => [t.pos * 2 + (t.joined ? 1 : 0), t.term] as const)));
    const slots: PhraseSlot[] = [];
    for (let k = 0; k < base.length; k++) {
      const tok = base[k]!;
      const alts: string[] = [];
      for (const m of byKey) {
        const t = m.get(tok.pos * 2 + (tok.joined ? 1 : 0));
        if (t != null && !alts.includes(t)) alts.push(t);
      }
      // a stopword in the primary language is a stopword
      if (tok.term === null || alts.length === 0) continue;
      // query-side stopwords: unquoted stand-alone words only (not parts of compounds or identifiers)
      if (queryStops && !span.quoted && !tok.joined && !joinsAt(span.text, tok.s - 1) && !joinsAt(span.text, tok.e) && qstops.has(analyzers[0]!.baseForm(span.text.slice(tok.s, tok.e)))) continue;
      alts.sort();
      for (const t of alts) highlight.add(t);
      const key = alts.join('\u0001');
      const weight = tok.joined ? JOINED_WEIGHT : isShortWord(tok.term) ? SHORT_WORD_WEIGHT : 1;
      const existing = seen.get(key);
      if (existing === undefined) {
        const w: QueryWord = {
          terms: alts,
          weight,
          surface: span.text.slice(tok.s, tok.e),
          start: span.start + tok.s,
          end: span.start + tok.e,
          quoted: span.quoted,
        };
        seen.set(key, w);
        words.push(w);
      } else if (weight > existing.weight) existing.weight = weight;
      if (span.quoted && !tok.joined) slots.push({ terms: alts, offset: tok.pos });
    }
    if (span.quoted && slots.length > 0) {
      const first = slots[0]!.offset;
      for (const s of slots) s.offset -= first;
      phrases.push({ slots, text: span.text });
    }
  }
  return { raw, languages: langs, words, phrases, highlightTerms: highlight };
}
