// A verdict for claims (issue 26, ADR 0241): when the question states a claim ("X increases Y", or "Is
// it true that X increases Y?"), each cited sentence is read against it by cues (negation, direction
// words such as increase/decrease/reduce/inhibit, null results such as "no effect" or "not associated",
// comparatives such as higher/lower) and the answer says whether the evidence supports the claim,
// contradicts it, or is mixed or insufficient. Pure; the tunables are chosen on one half of a labelled
// set and measured on the other (bench/answers).
import { contentWords } from './passages.js';

export type Stance = 'supports' | 'contradicts' | 'neutral';
export type Verdict = 'supports' | 'contradicts' | 'mixed' | 'insufficient';

export interface VerdictOptions {
  /** Least share of the claim's content words a sentence must hold to bear on it. */
  minOverlap: number;
  /** A sentence that bears on the claim but carries no direction cue counts as support (else neutral). */
  undirectedSupports: boolean;
  /** A single contradicting sentence among supporting ones makes the verdict mixed (else the majority). */
  anyContradictionMixes: boolean;
  /**
   * A text's direction: the balance of its cue words ('sum'), its last cue word ('last': the effect verb
   * usually follows its subject, "enhancing X reduced Y"), or composed from its parts ('composed': the
   * claim's own effect word found in the sentence decides, the claim's topic words such as "insulin
   * resistance" carry no direction, negators turn the word right after them, degree words such as
   * "significantly more than" do not count).
   */
  directionBy: 'sum' | 'last' | 'composed';
  /** A hedged sentence ("may", "might", "suggests", "possibly") neither supports nor contradicts. */
  hedgesNeutral: boolean;
  /** A sentence that reports how the study was done (section label or a passive of measuring, recruiting) neither supports nor contradicts. */
  methodsNeutral: boolean;
  /** Supporting and contradicting sentences both present: 'count' weighs them by number, 'closest' lets the sentence sharing most of the claim's words decide. */
  decideBy: 'count' | 'closest';
}

/** Chosen on the tuning part (even claim ids) of SciFact's own train labels, bench/answers/scifact-labels.json (bench/answers/run.ts --verdict; ADR 0275). */
export const DEFAULT_VERDICT_OPTIONS: VerdictOptions = { minOverlap: 0.3, undirectedSupports: true, anyContradictionMixes: false, directionBy: 'composed', decideBy: 'closest', hedgesNeutral: false, methodsNeutral: false };

const UP_RE = /\b(increas\w*|enhanc\w*|promot\w*|improv\w*|elevat\w*|higher|greater|more|rais\w*|augment\w*|accelerat\w*|stimulat\w*|induc\w*|activat\w*|potentiat\w*|up-?regulat\w*|positive(?:ly)?|exacerbat\w*|worsen\w*|boost\w*|amplif\w*|encourag\w*|restor\w*|requir\w*|necessary|essential|sufficient|caus\w*|lead[s]?|led|drives?|driv\w*|faster|longer|larger|stronger|efficient\w*|effective\w*|benefi\w*|protect\w*|stabili[sz]\w*|catalyz\w*|catalys\w*|facilitat\w*|support\w*|gain\w*)\b/gi;
const DOWN_RE = /\b(decreas\w*|reduc\w*|lower\w*|less|fewer|inhibit\w*|suppress\w*|impair\w*|attenuat\w*|diminish\w*|declin\w*|down-?regulat\w*|block\w*|prevent\w*|slow\w*|negative(?:ly)?|lack\w*|loss|lost|los[ei]\w*|delay\w*|abolish\w*|abrogat\w*|repress\w*|destabili[sz]\w*|smaller|shorter|weaker|ineffective\w*|disrupt\w*|mitigat\w*|deplet\w*|decline|depriv\w*|stop\w*|limit\w*|restrict\w*|dysfunction\w*|deficien\w*|defect\w*|damag\w*|toxic\w*|fail\w*|resist\w*)\b/gi;
const NULL_RE = /\b(no|not|nor|without)\s+(?:\w+\s+){0,3}?(effect|effects|difference|differences|association|associated|change|changes|changed|impact|influence|relationship|correlation|correlated|significant\w*|evidence|benefit|role|increase|decrease|reduction|improvement|affect\w*|alter\w*)\b|\b(similar|unchanged|comparable|unaffected|unaltered|independent(?:ly)? of|did not differ|same rate|neither)\b/i;
const NULL_G_RE = new RegExp(NULL_RE.source, 'gi');
const NEG_RE = /\b(not|no|never|neither|nor|cannot|without|none|fail(?:s|ed)? to|unable to|absence of)\b|n't\b/gi;

/** Direction of a text: +1 more/increase, -1 less/decrease, 0 none or balanced. */
function direction(text: string, by: VerdictOptions['directionBy']): number {
  const up = [...text.matchAll(UP_RE)].map((m) => m.index!);
  const down = [...text.matchAll(DOWN_RE)].map((m) => m.index!);
  if (by === 'last') return Math.sign(Math.max(-1, ...up) - Math.max(-1, ...down));
  return Math.sign(up.length - down.length);
}

/** A direction cue word of a text: where it is, its polarity, its family stem and its kind. */
interface Cue {
  index: number;
  word: string;
  polarity: 1 | -1;
  stem: string;
  /** 'verb': an effect word (increases, reduced, inhibition); 'comparative': a degree word (higher, more, less). */
  kind: 'verb' | 'comparative';
}

/** Comparative and degree words: they state a direction only when no effect word does, and not as a degree of one ("significantly more than"). */
const COMPARATIVE_RE = /^(?:higher|greater|more|less|fewer|lower|larger|smaller|longer|shorter|faster|slower|stronger|weaker|positive(?:ly)?|negative(?:ly)?)$/i;
/** Words that close a cue word's subject noun phrase before the verb (a noun form: "insulin resistance", "loss of p53", "deficiency"). */
const NOUN_FORM_RE = /(?:ss|ance|ence|ency|ity|ion|ment|ness|age|ure|ct)$/i;
/** The family of a cue word: reduces / reduced / reduction share "reduc". */
const stemOf = (w: string) => w.toLowerCase().replace(/-/g, '').slice(0, 5);
/** Negators that turn the direction word right after them (within three words). */
const LOCAL_NEG_RE = /\b(?:not|no|never|neither|nor|cannot|without|fail(?:s|ed)?\s+to|unable\s+to|absence\s+of|lack\s+of)\b|n't\b/gi;

function cuesOf(text: string): Cue[] {
  const out: Cue[] = [];
  for (const [re, polarity] of [[UP_RE, 1], [DOWN_RE, -1]] as const) {
    for (const m of text.matchAll(re)) out.push({ index: m.index!, word: m[0], polarity, stem: stemOf(m[0]), kind: COMPARATIVE_RE.test(m[0]) ? 'comparative' : 'verb' });
  }
  out.sort((a, b) => a.index - b.index);
  // A causal verb passes on the direction of the effect word it leads to ("leads to reduced lifespan"
  // reads as reducing, "resulted in disruption" as disrupting); alone it reads as raising.
  return out.filter((c, i) => !(TRANSPARENT_RE.test(c.word) && out[i + 1] !== undefined && out[i + 1]!.index - (c.index + c.word.length) <= 40));
}

/** Causal verbs that take the direction of the effect word after them. */
const TRANSPARENT_RE = /^(?:caus\w*|leads?|led|drives?|driv\w*)$/i;

/**
 * A null-result phrase about the claim: the phrase ("no association", "did not affect", "similar",
 * "independent of") with one of the claim's content words among the five words before it or the four
 * after it ("no association was detected between bariatric surgery ..."); a null phrase about something
 * else ("independent of upstream kinases", "no evidence of degradation") is not a null result for it.
 */
function nullAbout(claimWords: ReadonlySet<string>, sentence: string): boolean {
  for (const m of sentence.matchAll(NULL_G_RE)) {
    const before = sentence.slice(0, m.index).split(/[;:]/).at(-1)!.trim().split(/\s+/).slice(-5).join(' ');
    const after = sentence.slice(m.index! + m[0].length).split(/[;:,]/)[0]!.trim().split(/\s+/).slice(0, 4).join(' ');
    const inPhrase = new Set(contentWords(m[0]));
    if (contentWords(`${before} ${after}`).some((w) => claimWords.has(w) && !inPhrase.has(w))) return true;
  }
  return false;
}

/** A negator right before (within three words) one of the claim's content words. */
function negatesClaimWords(claimWords: ReadonlySet<string>, text: string): boolean {
  for (const m of text.matchAll(NEG_RE)) {
    const next = contentWords(text.slice(m.index! + m[0].length).trim().split(/\s+/).slice(0, 3).join(' '));
    if (next.some((w) => claimWords.has(w))) return true;
  }
  return false;
}

/** A negator within the three words before `at` in `text` (the clause's own, not one across a comma or semicolon). */
function negatedAt(text: string, at: number): boolean {
  const before = text.slice(0, at).split(/[,;:]/).at(-1)!;
  const words = before.trim().split(/\s+/).slice(-4).join(' ');
  return (words.match(LOCAL_NEG_RE) ?? []).length % 2 === 1;
}

/**
 * The claim's predicate: its effect word in a verb's form ("reduces", "increased", "can lower"), the
 * first such; else its first comparative; else its first cue. Its other cue words belong to its topic
 * ("insulin resistance", "loss of p53", "cell death") and bear no direction in either text.
 */
function predicateOf(claim: string): { cue: Cue | null; topicStems: Set<string> } {
  const cues = cuesOf(claim);
  const verbLike = (c: Cue) => c.kind === 'verb' && !NOUN_FORM_RE.test(c.word) && /(?:s|es|ed|ing|e)$/i.test(c.word);
  const cue = cues.find(verbLike) ?? cues.find((c) => c.kind === 'comparative') ?? cues[0] ?? null;
  return { cue, topicStems: new Set(cues.filter((c) => c !== cue && c.stem !== cue?.stem).map((c) => c.stem)) };
}

/**
 * The direction a sentence states, as the claim reads it (+1, -1 or 0), with polarity composed from
 * its parts: the claim's own effect word found in the sentence states the claim's direction (turned by a
 * negator right before it); otherwise its last effect word outside the claim's topic does, or, with none,
 * its last comparative that is not the degree of another word ("significantly more than"), each turned
 * by a negator right before it.
 */
function sentenceDirection(sentence: string, pred: ReturnType<typeof predicateOf>): number {
  const cues = cuesOf(sentence).filter((c) => !pred.topicStems.has(c.stem));
  const sign = (c: Cue) => (negatedAt(sentence, c.index) ? -c.polarity : c.polarity);
  if (pred.cue) {
    const same = cues.filter((c) => c.stem === pred.cue!.stem);
    if (same.length > 0) return sign(same[0]!);
  }
  const verbs = cues.filter((c) => c.kind === 'verb');
  if (verbs.length > 0) return sign(verbs.at(-1)!);
  const degree = (c: Cue) => /\b\w+ly\s*$/i.test(sentence.slice(Math.max(0, c.index - 20), c.index)) && /^\s*(?:so|than)\b/i.test(sentence.slice(c.index + c.word.length));
  const comparatives = cues.filter((c) => !degree(c));
  return comparatives.length > 0 ? sign(comparatives.at(-1)!) : 0;
}

/**
 * A sentence that frames the study (its aim, design, setting or background) rather than stating a
 * finding: it bears on no claim ("The objective of this study was to evaluate ...", "DESIGN Cohort study").
 */
const FRAMING_RE = /^(?:BACKGROUND|OBJECTIVES?|DESIGN|METHODS?|SETTING|PARTICIPANTS|CONTEXT|PURPOSE|AIMS?|INTRODUCTION|MAIN OUTCOME)\b|\b(?:objective|aim|purpose|goal)s?\s+(?:of\s+(?:this|the|our)\s+(?:study|work|trial)\s+)?(?:was|were|is|are)\s+to\b|^to\s+(?:explore|investigate|examine|determine|assess|evaluate|test|study|address|understand|characteri[sz]e)\b|\bwe\s+(?:studied|examined|investigated|explored|analy[sz]ed|evaluated|assessed|sought|aimed|asked|tested whether)\b|\bhere,?\s+we\s+(?:studied|examined|investigated|explored|analy[sz]ed)\b|\b(?:study|trial)\s+evaluating\b|\bremains?\s+(?:unclear|unknown|to be)\b|\bis\s+(?:unclear|unknown|poorly understood)\b|\bhas not been studied\b/i;

/** Hedges: a sentence that proposes rather than finds. */
const HEDGE_RE = /\b(?:may|might|could|possibly|perhaps|potentially|speculate\w*|hypothesi[sz]\w*|suggest(?:s|ed|ing)?\s+that|it is (?:possible|conceivable)|remains? (?:unclear|unknown|to be))\b/i;

/**
 * A sentence that reports how the study was done, not what it found: a structured abstract's
 * non-finding section labels ("DESIGN, SETTING, AND PARTICIPANTS", "MAIN OUTCOMES AND MEASURES"), or a
 * passive of measuring or recruiting ("rates were determined", "patients were enrolled").
 */
const METHODS_RE = /^(?:DESIGN|SETTING|PARTICIPANTS|PATIENTS|SAMPLE|SUBJECTS|MEASUREMENTS?|INTERVENTIONS?|MAIN OUTCOMES?|OUTCOME MEASURES?|DATA SOURCES?|STUDY SELECTION|DATA EXTRACTION|ELIGIBILITY|SEARCH STRATEGY|MATERIALS?|EXPOSURES?)\b|^Eligib|\b(?:was|were)\s+(?:determined|measured|calculated|assessed|recorded|collected|obtained|analy[sz]ed|randomi[sz]ed|enrolled|included|recruited|followed|interviewed|compared|estimated|evaluated|examined|identified|selected|screened)\b(?!\s+(?:to|as|by)\b)|\bthe primary (?:end ?point|outcome) was\b/;

const negated = (text: string) => (text.match(NEG_RE) ?? []).length % 2 === 1;

/** The claim a question states, or null for a question that asks rather than claims. */
export function claimOf(question: string): string | null {
  const q = question.trim();
  const m = /^(?:is it (?:true|the case|correct)|is there evidence|does the evidence show|do studies show)\s+that\s+([\s\S]+?)\??$/i.exec(q);
  if (m) return m[1]!.trim();
  if (/\?$/.test(q)) return null;
  if (/^(what|which|who|whom|whose|how|why|when|where|show|find|list|give|tell|explain|summari[sz]e|describe|compare|papers|studies|articles|reviews)\b/i.test(q)) return null;
  // A statement: at least three words, one of them a verb-like predicate word.
  if (q.split(/\s+/).length < 3) return null;
  return /\b(is|are|was|were|has|have|had|can|cannot|does|do|did|may|will|\w+(?:s|es|ed))\b/i.test(q) ? q.replace(/[.!]+$/, '') : null;
}

/** A weight for a claim's content word (its rarity in the index); equal weights without one. */
export type WordWeight = (word: string) => number;
const EQUAL: WordWeight = () => 1;

/**
 * Share of the claim's content words found in a sentence, each word weighted by `weight` (its rarity:
 * the claim's specific terms, such as an entity's name or a number, count for more than its common ones).
 */
export function claimOverlap(claim: string, sentence: string, weight: WordWeight = EQUAL): number {
  const cw = [...new Set(contentWords(claim))];
  const have = new Set(contentWords(sentence));
  let all = 0;
  let got = 0;
  for (const w of cw) {
    const x = weight(w);
    all += x;
    if (have.has(w)) got += x;
  }
  return all <= 0 ? 0 : got / all;
}

/** How `sentence` bears on `claim` by cues (`weight`: the claim words' weights for the overlap floor). */
export function stanceOf(claim: string, sentence: string, o: VerdictOptions = DEFAULT_VERDICT_OPTIONS, weight: WordWeight = EQUAL): Stance {
  if (claimOverlap(claim, sentence, weight) < o.minOverlap || FRAMING_RE.test(sentence) || (o.methodsNeutral && METHODS_RE.test(sentence))) return 'neutral';
  // A claim of no effect: a null-result phrase, or a negated direction ("does not enhance").
  const claimNull = NULL_RE.test(claim) || (negated(claim) && direction(claim, o.directionBy) !== 0);
  if (o.directionBy === 'composed') {
    // Polarity composed from the parts: the claim's predicate, its topic words, negators and null
    // phrases about the claim's words, causal verbs passing on their effect's direction, degree words.
    const claimWords = new Set(contentWords(claim));
    if (nullAbout(claimWords, sentence)) return claimNull ? 'supports' : 'contradicts';
    const pred = predicateOf(claim);
    const cDir = pred.cue ? (negatedAt(claim, pred.cue.index) ? -pred.cue.polarity : pred.cue.polarity) : 0;
    const sDir = sentenceDirection(sentence, pred);
    if (claimNull) return sDir !== 0 ? 'contradicts' : 'neutral';
    if (o.hedgesNeutral && HEDGE_RE.test(sentence)) return 'neutral';
    // What the claim says is changed (the words after its effect word). Requiring it also of a sentence
    // whose direction comes from another effect word was tried: SciFact tune macro-F1 0.583 -> 0.525
    // (evidence names the changed thing in other words), so only undirected sentences need it (below).
    const have = new Set(contentWords(sentence));
    const namesObject = !pred.cue || contentWords(claim.slice(pred.cue.index + pred.cue.word.length)).every((w) => have.has(w));
    if (sDir !== 0 && cDir !== 0) return sDir === cDir ? 'supports' : 'contradicts';
    if (negatesClaimWords(claimWords, claim) !== negatesClaimWords(claimWords, sentence)) return 'contradicts';
    // A sentence that states no direction supports a directed claim ("X reduces Y") only when it names
    // all of what the claim says is changed (Y): a topical sentence about X alone says nothing of Y.
    if (o.undirectedSupports && cDir !== 0 && sDir === 0 && !namesObject) return 'neutral';
    return o.undirectedSupports ? 'supports' : 'neutral';
  }
  const sentenceNull = NULL_RE.test(sentence);
  if (sentenceNull) return claimNull ? 'supports' : 'contradicts';
  const sDir = direction(sentence, o.directionBy);
  const cDir = direction(claim, o.directionBy);
  // A claim of no effect: a sentence that finds a direction contradicts it; one without says nothing.
  if (claimNull) return sDir !== 0 ? 'contradicts' : 'neutral';
  if (o.hedgesNeutral && HEDGE_RE.test(sentence)) return 'neutral';
  const cNeg = negated(claim);
  const sNeg = negated(sentence);
  if (sDir !== 0 && cDir !== 0) return sDir * (sNeg ? -1 : 1) === cDir * (cNeg ? -1 : 1) ? 'supports' : 'contradicts';
  if (cNeg !== sNeg) return 'contradicts';
  return o.undirectedSupports ? 'supports' : 'neutral';
}

/** The verdict of the stances of the cited sentences (`closeness`: each sentence's claimOverlap, for decideBy 'closest'). */
export function verdictOf(stances: readonly Stance[], o: VerdictOptions = DEFAULT_VERDICT_OPTIONS, closeness: readonly number[] = []): Verdict {
  const s = stances.filter((x) => x === 'supports').length;
  const c = stances.filter((x) => x === 'contradicts').length;
  if (s === 0 && c === 0) return 'insufficient';
  if (s > 0 && c > 0 && o.decideBy === 'closest' && !o.anyContradictionMixes) {
    let best = -1;
    let pick = 0;
    for (let i = 0; i < stances.length; i++) if (stances[i] !== 'neutral' && (closeness[i] ?? 0) > best) (best = closeness[i] ?? 0), (pick = i);
    return stances[pick] === 'supports' ? 'supports' : 'contradicts';
  }
  if (s > 0 && c > 0) return o.anyContradictionMixes || s === c ? 'mixed' : s > c ? 'supports' : 'contradicts';
  return s > 0 ? 'supports' : 'contradicts';
}

/** The answer's verdict line (plain words of the answerer, not of the evidence; no marker). */
export const VERDICT_TEXT: Record<Verdict, string> = {
  supports: 'Verdict: the cited evidence supports the claim.',
  contradicts: 'Verdict: the cited evidence contradicts the claim.',
  mixed: 'Verdict: the cited evidence is mixed (some sentences support the claim, some contradict it).',
  insufficient: 'Verdict: the cited evidence is insufficient to support or contradict the claim.',
};

/** The label of a group of sentences of one stance. */
export const STANCE_LABEL: Record<Stance, string> = { supports: 'Supports:', contradicts: 'Contradicts:', neutral: 'Neither supports nor contradicts:' };
