// Verdict benchmark (issue 26, ADR 0241): the offline answerer's verdict on claims against a labelled
// set the team wrote itself (bench/answers/verdict-labels.json: SciFact train claims and their judged
// abstracts, labelled SUPPORT / CONTRADICT / NEI by reading; NOT the public SciFact labels, which are
// not in the shared data). Each claim is asked as "Is it true that <claim>?" of the extractive answerer
// with its judged document as the evidence (title and abstract as one passage); the answer's verdict
// (mixed counts as insufficient) is compared with the label. The verdict tunables are chosen by macro-F1
// on the tuning half (items at even positions) and reported on the other half.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ExtractiveAnswerer } from '../../src/conversations/extractive.js';
import type { Passage } from '../../src/conversations/passages.js';
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

async function predict(items: readonly Item[], corpus: Map<string, { title: string; text: string }>, o: VerdictOptions) {
  const answerer = new ExtractiveAnswerer({}, o);
  const out: { item: Item; gold: Cls; predicted: Cls; verdict: string; answer: string }[] = [];
  for (const item of items) {
    const d = corpus.get(item.document_id)!;
    const passages: Passage[] = [{ number: 1, documentIndex: 1, snippetIndex: 0, documentId: item.document_id, title: d.title, field: 'abstract', text: d.text, fieldText: d.text, pinned: false }];
    const r = await answerer.answer({ question: claimQuestion(item.claim), history: [], passages, maxContextLength: null, apiKey: null, signal: new AbortController().signal, onDelta: () => {} });
    const v = r.verdict ?? 'insufficient';
    out.push({ item, gold: gold(item.label), predicted: v === 'mixed' ? 'insufficient' : v, verdict: v, answer: r.answer });
  }
  return out;
}

export async function verdictBenchmark(dataDir: string) {
  const labels = JSON.parse(readFileSync(join(repoRoot, 'bench', 'answers', 'verdict-labels.json'), 'utf8')) as { items: Item[] };
  const want = new Set(labels.items.map((i) => i.document_id));
  const corpus = new Map<string, { title: string; text: string }>();
  for (const line of readFileSync(join(dataDir, 'ir', 'scifact', 'corpus.jsonl'), 'utf8').split('\n')) {
    if (!line.trim()) continue;
    const d = JSON.parse(line) as { _id: string; title: string; text: string };
    if (want.has(d._id)) corpus.set(d._id, { title: d.title, text: d.text });
  }
  const tune = labels.items.filter((_, i) => i % 2 === 0);
  const report = labels.items.filter((_, i) => i % 2 === 1);
  const grid: VerdictOptions[] = [];
  for (const minOverlap of [0.15, 0.2, 0.25, 0.3, 0.4, 0.5]) for (const undirectedSupports of [true, false]) for (const anyContradictionMixes of [false, true]) for (const directionBy of ['sum', 'last'] as const) for (const decideBy of ['count', 'closest'] as const) grid.push({ minOverlap, undirectedSupports, anyContradictionMixes, directionBy, decideBy });
  let best: { o: VerdictOptions; f1: number } | null = null;
  const sweep = [];
  for (const o of grid) {
    const m = macroF1(await predict(tune, corpus, o));
    sweep.push({ ...o, tune_macro_f1: m.macro_f1 });
    if (!best || m.macro_f1 > best.f1) best = { o, f1: m.macro_f1 };
  }
  const reported = await predict(report, corpus, best!.o);
  const atDefault = await predict(report, corpus, DEFAULT_VERDICT_OPTIONS);
  const majority = report.map((i) => ({ gold: gold(i.label), predicted: 'supports' as Cls }));
  return {
    set: 'bench/answers/verdict-labels.json: the team\'s own labels (by reading) of SciFact train claims and their judged abstracts; NOT the public SciFact SUPPORT/CONTRADICT labels',
    items: { total: labels.items.length, tune: tune.length, report: report.length },
    evidence: 'the judged document only (title and abstract as one passage); the answerer picks the sentences and the verdict is read from them',
    chosen_on_tune_half: best!.o,
    tune_half: { macro_f1: best!.f1 },
    report_half: macroF1(reported),
    report_half_at_code_defaults: { options: DEFAULT_VERDICT_OPTIONS, ...macroF1(atDefault) },
    report_half_baseline_always_supports: macroF1(majority),
    sweep,
    report_items: reported.map((r) => ({ claim_id: r.item.claim_id, label: r.item.label, verdict: r.verdict, correct: r.gold === r.predicted })),
  };
}
