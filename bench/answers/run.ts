// Answer benchmark of the extractive answerer (issues 9 and 26, "Measured"). Usage:
//   node dist/bench/answers/run.js [--write] [--claims N] [--stream-runs N] [--sweep]
// 1. Judged questions over the SciFact corpus (../shared/data/ir/scifact): every SciFact train claim
//    turned into a question ("Is it true that <claim>?"; its judged documents are the evidence), plus
//    the off-corpus questions of off-corpus.json (nothing in the corpus answers them). Split by a fixed
//    rule: claims with an even id and off-corpus questions at even positions calibrate, the rest report.
//    Each question is asked through POST /v2/conversations/ with abstention switched off (the answerer
//    records its answerability and, per document, its parts, so any weights and threshold can be
//    applied afterwards). The answerability weights (co-occurring question terms, missing specific term)
//    and the abstention threshold are those that maximise abstention F1 on the calibration part;
//    everything reported is measured on the report part at them: abstention precision/recall/F1 (positive: an off-corpus question
//    answered with the abstention), cited-document precision (cited documents judged evidence, over
//    cited documents, macro over answered on-corpus questions) and recall (judged documents cited, over
//    judged documents, macro over all on-corpus questions, an abstention citing none), the share of
//    on-corpus questions answered with >= 1 judged citation, and the share of markers whose excerpt
//    occurs verbatim in the cited document and in the snippet it points at (must be 100%).
//    `--sweep` evaluates a grid of the answerer's citation tunables on the calibration part only (each
//    with its own calibrated weights and threshold), with the share of first retrieved documents judged.
// 2. The demo corpus: POST /v2/conversations/stream over a real socket from a client in a worker
//    thread (its own event loop, so it reads each event when it arrives), time to the first event and to
//    the result (p50, p95).
// 3. Verdict on claims (supports / contradicts / insufficient, macro-F1; `--verdict` runs only this):
//    against SciFact's own labels of its train claims (bench/answers/scifact-labels.json, see verdict.ts):
//    tuned on claims with an even id, reported on odd ids; --write stores
//    bench/results/answers-verdict.json with every report-part item (claim, expected, got).
// --write stores bench/results/answers.json (summary) and bench/results/answers-questions.json (every
// report-part question: question, expected, got, answerability, cited and judged documents) with the
// machine noted.
import { readFileSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { machine } from '../lib/machine.js';
import { verdictBenchmark } from './verdict.js';
import { evalDataDir } from '../quality/data-dir.js';
import { loadIrSet } from '../quality/ir-eval.js';
import { testApp } from '../../test/helpers/app.js';
import { doc, seed } from '../../test/helpers/documents.js';
import { repoRoot } from '../../test/helpers/paths.js';
import { answerabilityOf, DEFAULT_EXTRACTIVE_OPTIONS, EXTRACTIVE_MODEL_NAME, ExtractiveAnswerer, type AnswerabilityParts, type ExtractiveOptions } from '../../src/conversations/extractive.js';
import type { Principal } from '../../src/domain/principal.js';
import type { ResponseStepData } from '../../src/domain/conversation.js';

const args = process.argv.slice(2);
const arg = (name: string): string | undefined => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
const claimLimit = Number(arg('claims') ?? Infinity);
const streamRuns = Number(arg('stream-runs') ?? 100);
const LIMITS = { rateLimits: { conversations: { capacity: 1_000_000, refillPerSecond: 1_000_000 }, default: { capacity: 1_000_000, refillPerSecond: 1_000_000 } } } as never;

const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)]!;
};
const round = (x: number, d = 4) => Math.round(x * 10 ** d) / 10 ** d;

interface Wire {
  conversation_id: string;
  answer: string;
  citations: { citation_index: number; document_index: number; excerpt: string; snippet_index: number | null }[];
  search_documents: { document: { id: string }; snippets: { text: string }[] }[];
}

interface Question {
  id: string;
  kind: 'on' | 'off';
  part: 'calibrate' | 'report';
  text: string;
  /** Judged evidence documents (on-corpus). */
  judged: string[];
}

interface Row {
  q: Question;
  answerability: number;
  /** The answerer's parts of answerability per document (recombined at other weights by `weighted`). */
  parts: AnswerabilityParts[];
  /** The retrieved documents, in the order the search returned them. */
  retrieved: string[];
  cited: string[];
  markers: number;
  verbatim: number;
}

/** "Is it true that <claim>?": the claim as a question, its first letter lower-cased unless an acronym. */
export function claimQuestion(claim: string): string {
  const c = claim.trim().replace(/[.!?]+$/, '');
  const first = c.split(/\s+/)[0] ?? '';
  const lower = /^[A-Z][a-z]/.test(first) ? c[0]!.toLowerCase() + c.slice(1) : c;
  return `Is it true that ${lower}?`;
}

function questions(): Question[] {
  const set = loadIrSet(join(evalDataDir(), 'ir', 'scifact'), 'scifact-train', 'train');
  const out: Question[] = [];
  for (const [qid, rels] of set.qrels) {
    const claim = set.queries.get(qid);
    if (claim === undefined) continue;
    if (out.length >= claimLimit) break;
    out.push({ id: `scifact-${qid}`, kind: 'on', part: Number(qid) % 2 === 0 ? 'calibrate' : 'report', text: claimQuestion(claim), judged: [...rels].filter(([, s]) => s > 0).map(([d]) => d) });
  }
  const off = (JSON.parse(readFileSync(join(repoRoot, 'bench', 'answers', 'off-corpus.json'), 'utf8')) as { questions: string[] }).questions;
  off.forEach((text, i) => out.push({ id: `off-${i}`, kind: 'off', part: i % 2 === 0 ? 'calibrate' : 'report', text, judged: [] }));
  return out;
}

/**
 * Asks every question (abstention off) once per option set, all in one app over one seeded corpus (the
 * answerer's options are set between passes); one row per question per option set.
 */
async function ask(qs: readonly Question[], optionSets: readonly Partial<ExtractiveOptions>[]): Promise<Row[][]> {
  const set = loadIrSet(join(evalDataDir(), 'ir', 'scifact'), 'scifact-train', 'train');
  const app = await testApp(LIMITS, { extractive: { abstainBelow: 0 } });
  try {
    const acct = await app.account({ credits: 1_000_000_000 });
    const principal: Principal = { accountId: acct.id, credential: 'api_key', credentialId: 'bench', scopes: ['search'], clientId: null, isAgent: false, audience: null };
    for (let i = 0; i < set.corpus.length; i += 500) {
      await seed(app, set.corpus.slice(i, i + 500).map((d) => doc(d.id, { title: d.title, abstract: d.text, language: 'en', type: 'journal-article' })));
    }
    const text = new Map(set.corpus.map((d) => [d.id, `${d.title}\n${d.text}`]));
    await app.indexes!.catchUp();
    // The answerer the server uses; each answer's parts of answerability are read as it returns.
    const answerer = app.conversations.answererFor(EXTRACTIVE_MODEL_NAME) as ExtractiveAnswerer;
    const answer = answerer.answer.bind(answerer);
    let lastParts: AnswerabilityParts[] = [];
    answerer.answer = async (input) => {
      const out = await answer(input);
      lastParts = out.answerabilityParts ?? [];
      return out;
    };
    const all: Row[][] = [];
    for (const options of optionSets) {
      Object.assign(answerer.options, DEFAULT_EXTRACTIVE_OPTIONS, options, { abstainBelow: 0 });
      const rows: Row[] = [];
      for (const q of qs) {
        lastParts = [];
        const res = await app.http.inject({ method: 'POST', url: '/v2/conversations/', headers: { 'x-api-key': acct.key }, payload: { query: q.text, llm_config: { model_name: 'lectern-extractive' } } });
        if (res.statusCode !== 200) throw new Error(`${q.id}: ${res.statusCode} ${res.body}`);
        const r = res.json() as Wire;
        const view = await app.conversations.get(principal, r.conversation_id);
        const step = view.steps.find((st) => st.kind === 'response')!.data as ResponseStepData;
        const found = r.answer.match(/\[\d+\]/g) ?? [];
        let verbatim = 0;
        found.forEach((m, i) => {
          const c = r.citations[i];
          if (!c || m !== `[${c.document_index}]`) return;
          const sd = r.search_documents[c.document_index - 1];
          if (!sd || c.snippet_index === null) return;
          if (text.get(sd.document.id)?.includes(c.excerpt) && sd.snippets[c.snippet_index]?.text.includes(c.excerpt)) verbatim++;
        });
        rows.push({ q, answerability: step.answerability ?? 0, parts: lastParts, retrieved: r.search_documents.map((d) => d.document.id), cited: [...new Set(r.citations.map((c) => r.search_documents[c.document_index - 1]!.document.id))], markers: found.length, verbatim });
      }
      all.push(rows);
    }
    return all;
  } finally {
    await app.dispose();
  }
}

/** `rows` with answerability recombined from its parts at the given weights. */
function weighted(rows: readonly Row[], w: Pick<ExtractiveOptions, 'cooccurrenceWeight' | 'missingWeight'>): Row[] {
  return rows.map((r) => ({ ...r, answerability: r.parts.length === 0 ? 0 : Math.max(...r.parts.map((p) => answerabilityOf(p, w))) }));
}

const WEIGHT_GRID = [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6].flatMap((cooccurrenceWeight) => [0, 0.5, 1].map((missingWeight) => ({ cooccurrenceWeight, missingWeight })));

/** The answerability weights and threshold of best abstention F1 on `rows` (the calibration part); ties: the earlier weights (fewer, smaller). */
function calibrateAll(rows: readonly Row[]) {
  let best: { w: (typeof WEIGHT_GRID)[number]; t: number; f1: number } | null = null;
  for (const w of WEIGHT_GRID) {
    const r = weighted(rows, w);
    const t = calibrate(r);
    const f1 = measure(r, t).abstention.f1;
    if (!best || f1 > best.f1) best = { w, t, f1 };
  }
  return best!;
}

/** The measures of `rows` when questions with answerability below `t` abstain. */
function measure(rows: readonly Row[], t: number) {
  let tp = 0;
  let fp = 0;
  let fn = 0;
  let precision = 0;
  let answered = 0;
  let recall = 0;
  let on = 0;
  let withJudged = 0;
  let markers = 0;
  let verbatim = 0;
  let firstRetrievedJudged = 0;
  for (const r of rows) {
    const abstains = r.answerability < t;
    if (r.q.kind === 'off') {
      if (abstains) tp++;
      else fn++;
      if (!abstains) {
        markers += r.markers;
        verbatim += r.verbatim;
      }
      continue;
    }
    on++;
    if (abstains) {
      fp++;
      continue;
    }
    markers += r.markers;
    verbatim += r.verbatim;
    const judged = new Set(r.q.judged);
    if (r.retrieved[0] !== undefined && judged.has(r.retrieved[0])) firstRetrievedJudged++;
    const hits = r.cited.filter((d) => judged.has(d)).length;
    if (r.cited.length > 0) {
      answered++;
      precision += hits / r.cited.length;
    }
    if (hits > 0) withJudged++;
    recall += judged.size === 0 ? 0 : hits / judged.size;
  }
  const p = tp + fp === 0 ? 0 : tp / (tp + fp);
  const rc = tp + fn === 0 ? 0 : tp / (tp + fn);
  return {
    threshold: t,
    abstention: { precision: round(p), recall: round(rc), f1: round(p + rc === 0 ? 0 : (2 * p * rc) / (p + rc)), off_corpus: tp + fn, abstained_off_corpus: tp, on_corpus: on, abstained_on_corpus: fp },
    cited_document_precision: answered === 0 ? null : round(precision / answered),
    cited_document_recall: on === 0 ? null : round(recall / on),
    answers_with_judged_citation: on === 0 ? null : round(withJudged / on),
    answered_on_corpus_with_citations: answered,
    first_retrieved_document_judged: on === 0 ? null : round(firstRetrievedJudged / on),
    markers,
    verbatim_markers: verbatim,
    verbatim_share: markers === 0 ? null : round(verbatim / markers),
  };
}

/** The threshold with the best abstention F1 on `rows` (ties: the middle of the best run). */
function calibrate(rows: readonly Row[]): number {
  const grid = Array.from({ length: 201 }, (_, i) => i / 50);
  const f1 = grid.map((t) => measure(rows, t).abstention.f1);
  const best = Math.max(...f1);
  const at = grid.filter((_, i) => f1[i] === best);
  return at[Math.floor((at.length - 1) / 2)]!;
}

/** A client in a worker thread (its own event loop): times to the first event and to the result. */
const STREAM_CLIENT = `
const { parentPort, workerData } = require('node:worker_threads');
const { port, key, queries } = workerData;
(async () => {
  const out = [];
  for (const q of queries) {
    const t0 = performance.now();
    const res = await fetch('http://127.0.0.1:' + port + '/v2/conversations/stream', { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: JSON.stringify({ query: q, llm_config: { model_name: 'lectern-extractive' } }) });
    const reader = res.body.getReader();
    const dec = new TextDecoder();
    let first = -1, body = '';
    for (;;) {
      const r = await reader.read();
      if (r.done) break;
      const s = dec.decode(r.value, { stream: true });
      if (first < 0 && s.includes('event: ')) first = performance.now() - t0;
      body += s;
    }
    out.push({ ok: res.status === 200 && body.includes('event: result'), first, total: performance.now() - t0 });
  }
  parentPort.postMessage(out);
})().catch((e) => parentPort.postMessage({ error: String(e) }));
`;

async function demoStreams() {
  const app = await testApp({ ...(LIMITS as object), loadDemoCorpus: true } as never);
  try {
    await app.loadDemoCorpusIfEmpty();
    await app.indexes!.catchUp();
    const acct = await app.account({ credits: 1_000_000_000 });
    await app.http.listen({ port: 0, host: '127.0.0.1' });
    const port = (app.http.server.address() as AddressInfo).port;
    const docs = (await app.storage.documents.changesSince(0, 100_000)).flatMap((c) => (c.deleted || c.doc.index !== 'documents' ? [] : [c.doc]));
    const step = Math.max(1, Math.floor(docs.length / streamRuns));
    const queries = docs.filter((_, i) => i % step === 0).slice(0, streamRuns).map((d) => `What is known about ${d.title.split(/\s+/).slice(0, 8).join(' ')}?`);
    const worker = new Worker(STREAM_CLIENT, { eval: true, workerData: { port, key: acct.key, queries } });
    const out = await new Promise<{ ok: boolean; first: number; total: number }[] | { error: string }>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
    await worker.terminate();
    if (!Array.isArray(out)) throw new Error(out.error);
    const ok = out.filter((o) => o.ok);
    return {
      corpus: 'demo',
      documents: await app.storage.documents.count(),
      runs: ok.length,
      errors: out.length - ok.length,
      client: 'fetch in a worker thread of the benchmark process (its own event loop)',
      first_event_ms: { p50: round(quantile(ok.map((o) => o.first), 0.5), 2), p95: round(quantile(ok.map((o) => o.first), 0.95), 2) },
      result_ms: { p50: round(quantile(ok.map((o) => o.total), 0.5), 2), p95: round(quantile(ok.map((o) => o.total), 0.95), 2) },
      first_over_total_p50: round(quantile(ok.map((o) => o.first / o.total), 0.5), 3),
    };
  } finally {
    await app.dispose();
  }
}

const m = machine();
const qs = questions();
if (args.includes('--verdict')) {
  const v = await verdictBenchmark(evalDataDir());
  console.log(JSON.stringify({ ...v, sweep: undefined, report_items: undefined }, null, 2));
  if (args.includes('--write')) {
    writeFileSync(join(repoRoot, 'bench', 'results', 'answers-verdict.json'), JSON.stringify({ benchmark: 'answers-verdict', answerer: 'lectern-extractive', target_macro_f1: 0.7, ...v, note: 'quality only (no timings); run on a shared machine loaded by other work', machine: m, load_average_at_end: (await import('node:os')).loadavg().map((x) => round(x, 2)) }, null, 1) + '\n');
  }
} else if (args.includes('--sweep')) {
  // Calibration part only: the answerer's citation tunables; for each, the answerability weights and
  // threshold of best abstention F1, and the cited-document precision and recall there.
  const cal = qs.filter((q) => q.part === 'calibrate');
  const grid: Partial<ExtractiveOptions>[] = [{ maxDocuments: 1 }, { maxDocuments: 2 }, { maxDocuments: 2, furtherDocumentCoverage: 0.9 }, { rankDecay: 1 }, { rankDecay: 2 }, { rankDecay: 4 }, { rankDecay: 2, documentShare: 0.6 }];
  const all = await ask(cal, grid);
  grid.forEach((o, i) => {
    const c = calibrateAll(all[i]!);
    const m = measure(weighted(all[i]!, c.w), c.t);
    const p = m.cited_document_precision ?? 0;
    const r = m.cited_document_recall ?? 0;
    console.log(JSON.stringify({ ...o, ...c.w, threshold: c.t, abstention_f1: m.abstention.f1, cited_document_precision: p, cited_document_recall: r, cited_f1: round(p + r === 0 ? 0 : (2 * p * r) / (p + r)), answers_with_judged_citation: m.answers_with_judged_citation, first_retrieved_document_judged: m.first_retrieved_document_judged }));
  });
} else {
  const t0 = performance.now();
  const [allRows] = await ask(qs, [{}]);
  const askMs = performance.now() - t0;
  // Weights and threshold calibrated on the calibration part; everything reported on the report part.
  const cal = calibrateAll(allRows!.filter((r) => r.q.part === 'calibrate'));
  const rows = weighted(allRows!, cal.w);
  const codeRows = weighted(allRows!, DEFAULT_EXTRACTIVE_OPTIONS);
  const threshold = cal.t;
  const report = rows.filter((r) => r.q.part === 'report');
  const summary = {
    set: 'scifact-train claims as questions + off-corpus questions (bench/answers/off-corpus.json)',
    questions: { on_corpus: qs.filter((q) => q.kind === 'on').length, off_corpus: qs.filter((q) => q.kind === 'off').length },
    split: 'calibrate: claims with an even id, off-corpus questions at even positions; report: the rest',
    options: { ...DEFAULT_EXTRACTIVE_OPTIONS, ...cal.w, abstainBelow: threshold },
    calibrated: { ...cal.w, threshold },
    code: { cooccurrenceWeight: DEFAULT_EXTRACTIVE_OPTIONS.cooccurrenceWeight, missingWeight: DEFAULT_EXTRACTIVE_OPTIONS.missingWeight, threshold: DEFAULT_EXTRACTIVE_OPTIONS.abstainBelow },
    calibration_part: measure(rows.filter((r) => r.q.part === 'calibrate'), threshold),
    report_part: measure(report, threshold),
    report_part_at_code_defaults: measure(codeRows.filter((r) => r.q.part === 'report'), DEFAULT_EXTRACTIVE_OPTIONS.abstainBelow),
    verdict: 'measured separately against SciFact\'s own labels of its train claims: bench/results/answers-verdict.json (--verdict)',
    turn_ms_mean: round(askMs / qs.length, 2),
  };
  console.log(JSON.stringify(summary, null, 2));
  const demo = await demoStreams();
  console.log(JSON.stringify(demo));
  if (args.includes('--write')) {
    const targets = { cited_document_precision: 0.7, abstention_f1: 0.9, verdict_macro_f1: 0.7, verbatim_share: 1, first_event_ms_p50: 50 };
    writeFileSync(
      join(repoRoot, 'bench', 'results', 'answers.json'),
      JSON.stringify({ benchmark: 'answers', answerer: 'lectern-extractive', targets, judged: summary, demo_streams: demo, machine: m, note: 'measured on a shared 2-core machine loaded by other work (load average above)', load_average_at_end: (await import('node:os')).loadavg().map((x) => round(x, 2)) }, null, 2) + '\n',
    );
    const th = threshold;
    writeFileSync(
      join(repoRoot, 'bench', 'results', 'answers-questions.json'),
      JSON.stringify(
        report.map((r) => {
          const judged = new Set(r.q.judged);
          return { id: r.q.id, kind: r.q.kind, question: r.q.text, expected: r.q.kind === 'off' ? 'abstain' : 'answer citing a judged document', got: r.answerability < th ? 'abstain' : r.cited.some((d) => judged.has(d)) ? 'answer citing a judged document' : 'answer citing no judged document', answerability: r.answerability, abstains: r.answerability < th, cited: r.cited, judged: r.q.judged, judged_cited: r.cited.filter((d) => judged.has(d)).length };
        }),
        null,
        1,
      ) + '\n',
    );
  }
}
