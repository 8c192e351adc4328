// What lexical feedback (ADR 0315) costs at 100k documents: the synthetic corpus (seed 7; title +
// abstract + body indexed, the first --docs documents), the workload's 200 "or" queries, each run as the
// fulltext channel runs it (10 hits, 3 passages, exact totals) with and without feedback, alternating
// which goes first, CPU time of this thread per query (process.cpuUsage; the machine is shared and
// loaded). The feedback pass includes analysing the top document's title and abstract (the record read
// itself, from the index's stored records or the store, is not in it). Usage:
//   node dist/bench/quality/feedback-cost.js [--docs 100000] [--rounds 3] [--write]
import { createReadStream, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { MemoryIndexDirectory, SearchIndex, type EngineQuery } from '../../src/engine/index.js';
import { lexicalFeedbackPass, MEASURED_LEXICAL_FEEDBACK, type FeedbackDocument } from '../../src/search/lexical-feedback.js';
import { repoRoot } from '../../test/helpers/paths.js';
import { evalDataDir } from './data-dir.js';

const args = process.argv.slice(2);
const arg = (name: string): string | undefined => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
const maxDocs = Number(arg('docs') ?? 100_000);
const rounds = Number(arg('rounds') ?? 3);
const corpus = arg('corpus') ?? '/work/data/synth-100k.jsonl';

const cpuUs = (): number => {
  const c = process.cpuUsage();
  return c.user + c.system;
};
const pct = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))]!;
};

async function main(): Promise<void> {
  const load0 = loadavg();
  const index = SearchIndex.open(new MemoryIndexDirectory());
  const texts = new Map<string, FeedbackDocument>();
  const b0 = cpuUs();
  let n = 0;
  for await (const line of createInterface({ input: createReadStream(corpus) })) {
    if (!line.trim()) continue;
    const d = JSON.parse(line) as { id: string; title: string; abstract?: string; body?: string };
    index.add({ id: d.id, title: d.title, abstract: d.abstract ?? null, body: d.body ?? null, language: 'en' });
    texts.set(d.id, { title: d.title, abstract: d.abstract ?? null, language: 'en' });
    if (++n >= maxDocs) break;
  }
  index.commit('bench');
  const buildCpuS = (cpuUs() - b0) / 1e6;
  const workload = JSON.parse(readFileSync(join(evalDataDir(), '..', 'tools', 'synth-corpus', 'workload.json'), 'utf8')) as Record<string, { text: string }[]>;
  const qs: EngineQuery[] = workload['or']!.map((w) => ({ text: w.text, limit: 10, passagesPerHit: 3, exactTotal: true }));
  const load = async (hit: { id: string }): Promise<FeedbackDocument | null> => texts.get(hit.id) ?? null;
  const plain = (q: EngineQuery): number => {
    const t = cpuUs();
    index.search(q);
    return cpuUs() - t;
  };
  const withFeedback = async (q: EngineQuery): Promise<[number, number]> => {
    // as the fulltext mode runs it: a one-hit probe, the feedback pass (or the plain query when none)
    const t = cpuUs();
    const pass = await lexicalFeedbackPass(index, q, null, MEASURED_LEXICAL_FEEDBACK, load);
    if (!pass) index.search(q);
    return [cpuUs() - t, pass ? 1 : 0];
  };
  // where the feedback pass's time goes: the same pass without exact totals (the union count of the query's
  // and the expansion's postings), and without passages
  const variant = async (q: EngineQuery, over: Partial<EngineQuery>): Promise<number> => {
    const t = cpuUs();
    const pass = await lexicalFeedbackPass(index, { ...q, ...over }, null, MEASURED_LEXICAL_FEEDBACK, load);
    if (!pass) index.search({ ...q, ...over });
    return cpuUs() - t;
  };
  const noTotals: number[] = [];
  const noTotalsNoPassages: number[] = [];
  const plainNoTotals: number[] = [];
  for (const q of qs) {
    plain(q);
    await withFeedback(q);
  }
  const a: number[] = [];
  const b: number[] = [];
  let applied = 0;
  for (let r = 0; r < rounds; r++)
    for (const [i, q] of qs.entries()) {
      if ((i + r) % 2 === 0) {
        a.push(plain(q));
        const [us, ok] = await withFeedback(q);
        b.push(us);
        applied += ok;
      } else {
        const [us, ok] = await withFeedback(q);
        b.push(us);
        applied += ok;
        a.push(plain(q));
      }
    }
  for (let r = 0; r < rounds; r++)
    for (const q of qs) {
      noTotals.push(await variant(q, { exactTotal: false }));
      noTotalsNoPassages.push(await variant(q, { exactTotal: false, passagesPerHit: 0 }));
      plainNoTotals.push(plain({ ...q, exactTotal: false }));
    }
  const ms = (xs: number[]) => ({ p50_ms: pct(xs, 0.5) / 1000, p99_ms: pct(xs, 0.99) / 1000, mean_ms: xs.reduce((s, x) => s + x, 0) / xs.length / 1000 });
  const out = {
    benchmark: 'lexical-feedback-cost',
    date: new Date().toISOString(),
    corpus: { path: corpus, docs: n, fields: 'title + abstract + body' },
    queries: qs.length,
    rounds,
    feedback: MEASURED_LEXICAL_FEEDBACK,
    feedbackApplied: applied / rounds,
    cpuPerQuery: { fulltext: ms(a), fulltext_with_feedback: ms(b), x_p50: pct(b, 0.5) / pct(a, 0.5), x_mean: b.reduce((s, x) => s + x, 0) / a.reduce((s, x) => s + x, 0) },
    breakdown: { fulltext_without_exact_totals: ms(plainNoTotals), feedback_without_exact_totals: ms(noTotals), feedback_without_exact_totals_or_passages: ms(noTotalsNoPassages), note: 'not interleaved with the rows above (run after them)' },
    buildCpuS,
    machine: { cpu: cpus()[0]?.model, cores: cpus().length, ramGiB: Math.round(totalmem() / 2 ** 30), node: process.version, loadAverageAtStart: load0, loadAverageAtEnd: loadavg(), note: 'CPU time of the benchmark thread per query (process.cpuUsage), A/B alternated per query; shared loaded machine' },
  };
  console.log(JSON.stringify({ ...out.cpuPerQuery, ...out.breakdown }, null, 1), `feedback applied to ${out.feedbackApplied} of ${qs.length}`);
  if (args.includes('--write')) writeFileSync(join(repoRoot, 'bench', 'results', 'lexical-feedback-cost-100k.json'), JSON.stringify(out, null, 2) + '\n');
}

void main();
