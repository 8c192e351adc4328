// Verdict benchmark (issue 26, ADR 0241, ADR 0275): the offline answerer's verdict on claims against
// SciFact's own labels of its train claims (bench/answers/scifact-labels.json, from the public release:
// each evidence document SUPPORT or CONTRADICT, the cited documents of claims without evidence NEI).
// Each claim is asked as "Is it true that <claim>?" of the extractive answerer with the labelled document
// as the evidence (title and abstract as one passage); the answer's verdict (mixed counts as
// insufficient) is compared with the label. The verdict tunables are chosen by macro-F1 on the tuning
// part (claims with an even id) and reported on the other part (odd ids); the team's own 68 labels
// (verdict-labels.json, an earlier stand-in) are scored at the same options for comparison.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ExtractiveAnswerer } from '../../src/conversations/extractive.js';
import { contentWords, type Passage } from '../../src/conversations/passages.js';
import type { LexicalModel } from '../../src/conversations/answerer.js';
import { DEFAULT_VERDICT_OPTIONS, type VerdictOptions } from '../../src/conversations/verdict.js';
import { repoRoot } from '../../test/helpers/paths.js';

interface Item {
  claim_id: string;
  claim: string;
  document_id: string;
  label: 'SUPPORT' | 'CONTRADICT' | 'NEI';
}

const CLASSES = ['supports', 'contradicts', 'insufficient'] as const;
type Cls = (typeof CLASSES)[number];
const gold = (l: Item['label']): Cls => (l === 'SUPPORT' ? 'supports' : l === 'CONTRADICT' ? 'contradicts' : 'insufficient');
const round = (x: number) => Math.round(x * 1e4) / 1e4;

export function macroF1(pairs: readonly { gold: Cls; predicted: Cls }[]) {
  const per: Record<string, { precision: number; recall: number; f1: number; n: number }> = {};
  let sum = 0;
  for (const k of CLASSES) {
    const tp = pairs.filter((p) => p.gold === k && p.predicted === k).length;
    const fp = pairs.filter((p) => p.gold !== k && p.predicted === k).length;
    const fn = pairs.filter((p) => p.gold === k && p.predicted !== k).length;
    const precision = tp + fp === 0 ? 0 : tp / (tp + fp);
    const recall = tp + fn === 0 ? 0 : tp / (tp + fn);
    const f1 = precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
    per[k] = { precision: round(precision), recall: round(recall), f1: round(f1), n: tp + fn };
    sum += f1;
  }
  return { macro_f1: round(sum / CLASSES.length), accuracy: round(pairs.filter((p) => p.gold === p.predicted).length / Math.max(1, pairs.length)), per_class: per };
}

function claimQuestion(claim: string): string {
  const c = claim.trim().replace(/[.!?]+$/, '');
  const first = c.split(/\s+/)[0] ?? '';
  return `Is it true that ${/^[A-Z][a-z]/.test(first) ? c[0]!.toLowerCase() + c.slice(1) : c}?`;
}

/**
 * The term model an index would hand the answerer, from the whole SciFact corpus: content words and
 * their idf (the index's own analyser stems; these are the answerer's content words, unstemmed).
 */
let corpusLexicon: LexicalModel | undefined;
function lexiconOf(dataDir: string): LexicalModel {
  if (corpusLexicon) return corpusLexicon;
  const df = new Map<string, number>();
  let n = 0;
  for (const line of readFileSync(join(dataDir, 'ir', 'scifact', 'corpus.jsonl'), 'utf8').split('\n')) {
    if (!line.trim()) continue;
    const d = JSON.parse(line) as { title: string; text: string };
    n++;
    for (const w of new Set(contentWords(`${d.title} ${d.text}`))) df.set(w, (df.get(w) ?? 0) + 1);
  }
  const idf = (t: string) => Math.log(1 + (n - (df.get(t) ?? 0) + 0.5) / ((df.get(t) ?? 0) + 0.5));
  corpusLexicon = { terms: contentWords, idf, maxIdf: idf('\u0000'), documents: n };
  return corpusLexicon;
}

async function predict(items: readonly Item[], corpus: Map<string, { title: string; text: string }>, o: VerdictOptions, lexicon?: LexicalModel) {
  // Abstention off: the labelled document is the evidence by construction (abstention is measured by run.ts).
  const answerer = new ExtractiveAnswerer({ abstainBelow: 0 }, o);
  const out: { item: Item; gold: Cls; predicted: Cls; verdict: string; answer: string }[] = [];
  for (const item of items) {
    const d = corpus.get(item.document_id)!;
    const passages: Passage[] = [{ number: 1, documentIndex: 1, snippetIndex: 0, documentId: item.document_id, title: d.title, field: 'abstract', text: d.text, fieldText: d.text, pinned: false }];
    const r = await answerer.answer({ question: claimQuestion(item.claim), history: [], passages, maxContextLength: null, apiKey: null, signal: new AbortController().signal, onDelta: () => {}, ...(lexicon ? { lexicon } : {}) });
    const v = r.verdict ?? 'insufficient';
    out.push({ item, gold: gold(item.label), predicted: v === 'mixed' ? 'insufficient' : v, verdict: v, answer: r.answer });
  }
  return out;
}

/** SciFact's own labels (bench/answers/scifact-labels.json), claim texts from the shared queries. */
function scifactItems(dataDir: string): Item[] {
  const labels = JSON.parse(readFileSync(join(repoRoot, 'bench', 'answers', 'scifact-labels.json'), 'utf8')) as { items: { claim_id: string; document_id: string; label: Item['label'] | 'CONFLICT' }[] };
  const claims = new Map<string, string>();
  for (const line of readFileSync(join(dataDir, 'ir', 'scifact', 'queries.jsonl'), 'utf8').split('\n')) {
    if (!line.trim()) continue;
    const q = JSON.parse(line) as { _id: string; text: string };
    claims.set(q._id, q.text);
  }
  return labels.items.flatMap((i) => (i.label === 'CONFLICT' || !claims.has(i.claim_id) ? [] : [{ claim_id: i.claim_id, claim: claims.get(i.claim_id)!, document_id: i.document_id, label: i.label }]));
}

function loadCorpus(dataDir: string, want: Set<string>) {
  const corpus = new Map<string, { title: string; text: string }>();
  for (const line of readFileSync(join(dataDir, 'ir', 'scifact', 'corpus.jsonl'), 'utf8').split('\n')) {
    if (!line.trim()) continue;
    const d = JSON.parse(line) as { _id: string; title: string; text: string };
    if (want.has(d._id)) corpus.set(d._id, { title: d.title, text: d.text });
  }
  return corpus;
}

/**
 * Tunables chosen by macro-F1 on the tuning part of SciFact's own labels (claims with an even id, the
 * split of run.ts), reported on the other part (odd ids), and on the team's 68 labels at the same options.
 */
export async function verdictBenchmark(dataDir: string) {
  const sf = scifactItems(dataDir);
  const team = (JSON.parse(readFileSync(join(repoRoot, 'bench', 'answers', 'verdict-labels.json'), 'utf8')) as { items: Item[] }).items;
  const corpus = loadCorpus(dataDir, new Set([...sf, ...team].map((i) => i.document_id)));
  const tune = sf.filter((i) => Number(i.claim_id) % 2 === 0);
  const report = sf.filter((i) => Number(i.claim_id) % 2 === 1);
  const lex = lexiconOf(dataDir);
  const grid: VerdictOptions[] = [];
  for (const minOverlap of [0.2, 0.3, 0.4, 0.5]) for (const undirectedSupports of [true, false]) for (const directionBy of ['last', 'composed'] as const) for (const decideBy of ['count', 'closest'] as const) for (const hedgesNeutral of [false, true]) for (const methodsNeutral of [false, true]) grid.push({ minOverlap, undirectedSupports, anyContradictionMixes: false, directionBy, decideBy, hedgesNeutral, methodsNeutral });
  let best: { o: VerdictOptions; f1: number } | null = null;
  const sweep = [];
  for (const o of grid) {
    const m = macroF1(await predict(tune, corpus, o, lex));
    sweep.push({ ...o, tune_macro_f1: m.macro_f1 });
    if (!best || m.macro_f1 > best.f1) best = { o, f1: m.macro_f1 };
  }
  const reported = await predict(report, corpus, best!.o, lex);
  const atDefault = await predict(report, corpus, DEFAULT_VERDICT_OPTIONS, lex);
  const before = await predict(report, corpus, { minOverlap: 0.3, undirectedSupports: true, anyContradictionMixes: false, directionBy: 'last', decideBy: 'closest', hedgesNeutral: false, methodsNeutral: false });
  const majority = report.map((i) => ({ gold: gold(i.label), predicted: 'supports' as Cls }));
  const teamReport = team.filter((_, i) => i % 2 === 1);
  return {
    set: 'bench/answers/scifact-labels.json: SciFact\'s own labels of its train claims (public release: evidence documents SUPPORT / CONTRADICT, cited documents of claims without evidence NEI); one item per (claim, document)',
    split: 'tune: claims with an even id; report: odd ids (as bench/answers/run.ts)',
    items: { total: sf.length, tune: tune.length, report: report.length, report_by_label: Object.fromEntries(['SUPPORT', 'CONTRADICT', 'NEI'].map((l) => [l, report.filter((i) => i.label === l).length])) },
    evidence: 'the labelled document only (title and abstract as one passage), abstention off; the answerer picks the sentences and the verdict is read from them (mixed counts as insufficient)',
    lexicon: 'idf of the answerer\'s content words over the whole SciFact corpus (as an index\'s term model would weigh them)',
    chosen_on_tune_part: best!.o,
    tune_part: { macro_f1: best!.f1 },
    report_part: macroF1(reported),
    report_part_at_code_defaults: { options: DEFAULT_VERDICT_OPTIONS, ...macroF1(atDefault) },
    report_part_before_issue_26_fixes: { options: 'the code before this work: last cue word, sentence-wide negation parity, words of equal weight, methods sentences not set apart', ...macroF1(before) },
    report_part_baseline_always_supports: macroF1(majority),
    team_labels_report_half_at_chosen_options: { set: 'bench/answers/verdict-labels.json (the team\'s own 68 labels), items at odd positions', ...macroF1(await predict(teamReport, corpus, best!.o, lex)) },
    sweep,
    report_items: reported.map((r) => ({ claim_id: r.item.claim_id, claim: r.item.claim, document_id: r.item.document_id, expected: r.item.label, got: r.verdict, correct: r.gold === r.predicted })),
  };
}
