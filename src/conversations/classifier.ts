// The rule-based query classifier (no model): keywords, a reformulated search query, a date range from
// expressions such as "papers since 2020", "in the last five years", "before 2010" (years only where
// the phrasing asks for publication time, not inside a claim), recency, content type,
// query language, and follow-up detection (a short question such as "what about in mice?" searches
// with the earlier turn's topic). Pure: the current time comes in as a parameter.
import type { ClassifiedQuery } from '../domain/conversation.js';

const YEAR_S = (y: number) => Date.UTC(y, 0, 1) / 1000;

const NUMBER_WORDS: Record<string, number> = {
  one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10,
  eleven: 11, twelve: 12, fifteen: 15, twenty: 20, thirty: 30, fifty: 50, a: 1,
};

const STOPWORDS: Record<string, Set<string>> = {
  en: new Set('a an the of in on at to for from by with about and or but is are was were be been being do does did what which who whom whose how why when where that this these those it its they them their there here than then as into over under between during since before after within not no can could should would may might will shall has have had any some all most more less very also such so if whether much many does tell me us please show find give list explain summarize summarise i we you your our my'.split(' ')),
  de: new Set('der die das und oder ist sind war waren ein eine einer eines dem den des mit von zu im in auf für bei wie was wer warum welche nicht auch über nach vor seit'.split(' ')),
  fr: new Set('le la les et ou est sont était un une des du de dans sur pour par avec comme que qui quoi pourquoi quels quelles pas aussi depuis avant après'.split(' ')),
  es: new Set('el la los las y o es son era un una unos unas del de en sobre para por con como que quien qué por qué cuál no también desde antes después'.split(' ')),
};

/** Words that ask for recent work (set `is_recent`; without an explicit range: the last five years). */
const RECENT_RE = /\b(recent(?:ly)?|latest|newest|current(?:ly)?|state of the art|nowadays|these days)\b/i;
const CONTENT_TYPES: [RegExp, string][] = [
  [/\b(systematic )?reviews?\b|\bmeta-?analys[ie]s\b/i, 'review'],
  [/\bpreprints?\b/i, 'preprint'],
  [/\b(theses|thesis|dissertations?)\b/i, 'dissertation'],
  [/\bdatasets?\b/i, 'dataset'],
  [/\bbooks?\b|\bmonographs?\b/i, 'book'],
];
const FOLLOW_UP_START_RE = /^(what|how) about\b|^(and|also|but|what if|in|for|with|compared)\b/i;
/** Pronouns that refer back; they mark a follow-up only in a short question (a long one states its own topic). */
const FOLLOW_UP_PRONOUN_RE = /\b(it|they|them|this|that|these|those|its|their)\b/i;
const EVENT_RE = /\b(conference|workshop|symposium|summit|outbreak|pandemic|earthquake|election)\b/i;
const INSTRUCTION_WORDS = new Set(['tell', 'show', 'find', 'give', 'list', 'explain', 'summarize', 'summarise', 'describe', 'papers', 'paper', 'studies', 'study', 'articles', 'article', 'research', 'literature', 'evidence', 'work', 'works', 'published', 'publications']);

/** Words that name the literature or its publication: right before a year expression they make it a publication-date filter. */
const PUBLICATION_CUE_RE = /\b(?:papers?|articles?|publications?|published|publishing|studies|study|literature|research|works?|preprints?|reviews?|theses|thesis|dissertations?|reports?|trials?|books?|datasets?|issued|appeared|written)\s+(?:\S+\s+){0,2}$/i;
/**
 * Predicates that make the text before a year expression a statement about the world ("incidence
 * increased from 2009 to 2014", "how has X changed since 2020?"): the years then date the finding, not
 * the literature. Auxiliaries, copulas and verbs of change and occurrence, in their common inflections.
 */
const PREDICATE_RE = /\b(?:is|are|was|were|be|been|being|has|have|had|do|does|did|will|would|can|could|may|might|shall|should|won|lost|led|rose|risen|fell|fallen|grew|grown|became|increas(?:e|es|ed|ing)|decreas(?:e|es|ed|ing)|reduc(?:e|es|ed|ing)|declin(?:e|es|ed|ing)|ris(?:e|es|ing)|fall(?:s|ing)?|grow(?:s|ing)?|chang(?:e|es|ed|ing)|remain(?:s|ed|ing)?|doubl(?:e|es|ed|ing)|tripl(?:e|es|ed|ing)|dropp(?:ed|ing)|drops?|improv(?:e|es|ed|ing)|worsen(?:s|ed|ing)?|caus(?:e|es|ed|ing)|occurr(?:ed|ing)|occurs?|happen(?:s|ed|ing)?|shows|showed|shown|found|finds|report(?:s|ed)|observ(?:e|es|ed)|associat(?:e|es|ed)|affect(?:s|ed)?|peak(?:s|ed)?|expand(?:s|ed)?|shrank|shrunk|spread|emerg(?:e|es|ed)|launch(?:es|ed)?|introduc(?:e|es|ed)|adopt(?:s|ed)?|treat(?:s|ed)|received?|lived?|died?|born|enroll(?:s|ed)?|recruit(?:s|ed)?|conduct(?:s|ed)?|collect(?:s|ed)?)\b/i;

/**
 * Whether the year expression `m` (at its index in `query`) asks for publication time: a publication
 * word right before it ("papers since 2020", "published after 2018", "studies between 2010 and 2015"),
 * or a search phrase without a predicate before it ("hydrogen storage since 2020"). Inside a claim or a
 * question about events ("incidence rose from 2009 to 2014", "how has X changed since 2020?") the years
 * date what the sentence is about, and filtering the literature by them would empty retrieval (issue 26).
 */
function asksPublicationTime(query: string, m: RegExpExecArray): boolean {
  const before = query.slice(0, m.index);
  if (PUBLICATION_CUE_RE.test(before)) return true;
  return !PREDICATE_RE.test(before) && !PREDICATE_RE.test(query.slice(m.index + m[0].length));
}

/** A date expression of the query, resolved at `nowS` (Unix seconds): [start, end) and the matched text. */
export function resolveDateExpression(query: string, nowS: number): { date: [number, number]; expression: string } | null {
  const year = new Date(nowS * 1000).getUTCFullYear();
  const end = nowS + 1;
  let m = /\b(?:between|from)\s+(\d{4})\s+(?:and|to|until|-)\s+(\d{4})\b/i.exec(query);
  // A year range or year inside a claim dates its finding: no filter, and no weaker reading of the same years.
  if (m && !asksPublicationTime(query, m)) return null;
  if (m) {
    const a = Math.min(+m[1]!, +m[2]!);
    const b = Math.max(+m[1]!, +m[2]!);
    return { date: [YEAR_S(a), YEAR_S(b + 1)], expression: m[0] };
  }
  m = /\b(?:since|after|from)\s+(\d{4})\b/i.exec(query);
  if (m && !asksPublicationTime(query, m)) return null;
  if (m) {
    const y = +m[1]!;
    const start = /after/i.test(m[0]) ? YEAR_S(y + 1) : YEAR_S(y);
    return { date: [start, Math.max(start, end)], expression: m[0] };
  }
  m = /\b(?:before|until|prior to)\s+(\d{4})\b/i.exec(query);
  if (m && !asksPublicationTime(query, m)) return null;
  if (m) return { date: [YEAR_S(1000), YEAR_S(+m[1]!)], expression: m[0] };
  m = /\b(?:in the|over the|during the|within the|from the)?\s*(?:last|past|previous)\s+(\d+|[a-z]+)?\s*(years?|decades?|months?)\b/i.exec(query);
  if (m) {
    const n = m[1] === undefined ? 1 : /^\d+$/.test(m[1]) ? +m[1] : NUMBER_WORDS[m[1].toLowerCase()];
    if (n !== undefined && n > 0) {
      const unit = m[2]!.toLowerCase();
      const start = unit.startsWith('month') ? nowS - Math.round(n * 30.44 * 86400) : YEAR_S(year - n * (unit.startsWith('decade') ? 10 : 1));
      return { date: [start, end], expression: m[0].trim() };
    }
  }
  // A bare "in 2001" usually dates what a claim is about, not the literature: only "published in".
  m = /\bpublished\s+(?:in|during)\s+(\d{4})\b/i.exec(query);
  if (m && +m[1]! >= 1500 && +m[1]! <= year + 1) return { date: [YEAR_S(+m[1]!), YEAR_S(+m[1]! + 1)], expression: m[0] };
  return null;
}

/** The most likely language of a query by stop words (ISO 639-1; 'en' when unsure). */
export function queryLanguage(query: string): string {
  const words = query.toLowerCase().match(/\p{L}+/gu) ?? [];
  let best = 'en';
  let bestN = 0;
  for (const [lang, stops] of Object.entries(STOPWORDS)) {
    const n = words.filter((w) => stops.has(w)).length;
    if (n > bestN) {
      best = lang;
      bestN = n;
    }
  }
  return best;
}

/** Content words of a query in order, without stop words, date expressions or instruction words; quoted phrases kept whole. */
export function keywordsOf(query: string, lang = queryLanguage(query)): string[] {
  const stops = STOPWORDS[lang] ?? STOPWORDS.en!;
  const out: string[] = [];
  const seen = new Set<string>();
  const re = /"([^"]+)"|\u201c([^\u201d]+)\u201d|([\p{L}\p{N}][\p{L}\p{N}'\-]*)/gu;
  for (const m of query.matchAll(re)) {
    const phrase = m[1] ?? m[2];
    if (phrase !== undefined) {
      const p = `"${phrase.trim()}"`;
      if (!seen.has(p)) out.push(p), seen.add(p);
      continue;
    }
    const w = m[3]!.toLowerCase();
    if (stops.has(w) || STOPWORDS.en!.has(w) || INSTRUCTION_WORDS.has(w) || NUMBER_WORDS[w] !== undefined) continue;
    if (/^(years?|decades?|months?|last|past|recent(ly)?|latest|newest)$/.test(w)) continue;
    if (!seen.has(w)) out.push(w), seen.add(w);
  }
  return out;
}

/**
 * Classifies `query`; `previous` are the earlier request queries of the conversation (oldest first).
 * A follow-up (a pronoun, "what about ...", or three or fewer content words after an earlier turn)
 * searches with the earlier topic's keywords added.
 */
export function classify(query: string, previous: readonly string[], nowS: number): ClassifiedQuery {
  const lang = queryLanguage(query);
  const dated = resolveDateExpression(query, nowS);
  const isRecent = RECENT_RE.test(query);
  const contentType = CONTENT_TYPES.find(([re]) => re.test(query))?.[1] ?? null;
  const own = keywordsOf(dated ? query.replace(dated.expression, ' ') : query, lang).filter((k) => !(contentType && /^(reviews?|preprints?|systematic|meta-?analys[ie]s|theses|thesis|dissertations?|datasets?|books?|monographs?)$/.test(k)));
  const aspects: string[] = [];
  let keywords = own;
  const last = previous.at(-1);
  const followUp = last !== undefined && (FOLLOW_UP_START_RE.test(query.trim()) || own.length <= 3 || (own.length <= 5 && FOLLOW_UP_PRONOUN_RE.test(query)));
  if (followUp) {
    const lastDated = resolveDateExpression(last, nowS);
    const earlier = keywordsOf(lastDated ? last.replace(lastDated.expression, ' ') : last);
    keywords = [...own, ...earlier.filter((k) => !own.includes(k))];
    aspects.push('follow_up');
  }
  if (dated) aspects.push('date');
  if (isRecent) aspects.push('recency');
  if (contentType) aspects.push('content_type');
  if (own.some((k) => k.startsWith('"'))) aspects.push('phrase');
  let date = dated?.date ?? null;
  if (!date && isRecent) {
    const year = new Date(nowS * 1000).getUTCFullYear();
    date = [YEAR_S(year - 5), nowS + 1];
  }
  const reformulated = keywords.length > 0 ? keywords.join(' ') : query.trim();
  return {
    originalQuery: query,
    reformulatedQuery: reformulated,
    keywords,
    classifiedAspects: aspects,
    date,
    dateExpression: dated?.expression ?? (isRecent && date ? 'recent (last 5 years)' : null),
    isRecent,
    isEvent: EVENT_RE.test(query),
    contentType,
    queryLanguage: lang,
    relatedQueries: followUp && own.length > 0 ? [own.join(' ')] : [],
    title: null,
  };
}
