// Added latency of the ranking pipeline (docs/ranking.md) at 100k documents, for pools of 100 and 256
// candidates: each workload query (synthetic corpus, /work/shared/tools/synth-corpus, classes `or` and
// `phrase`) is run through POST /v2/search/ (in process, app.http.inject) as the control
// (candidate_ranking rrf, l2_rerank off) and under each stage, alternating per query; the response's
// timings.total_us and the ranking trace's time give the added latency (paired per query; p50/p99).
//
//   node dist/bench/ranking/pipeline.bench.js --corpus /work/tmp/ranking/synth-100k.jsonl --dir /work/tmp/ranking/data \
//        [--queries 100] [--out bench/results/ranking-pipeline-100k.json]
//
// Stages measured: an L1 formula over retrieval and lexical features (title/abstract/body BM25,
// phrase, proximity: one engine pass over the pool's postings, SearchIndex.scoreParts, ADR 0139), an L1 formula over retrieval features only, an L2 CatBoost
// model of 200 depth-6 oblivious trees over 20 features (written here with fixed pseudo-random borders:
// the evaluator's cost depends on the trees, not on what they learned), and L1 + L2 together.
// Peer, in the same run: SQLite FTS5 over the same corpus, the same queries ranked by a weighted bm25
// expression over the top 100 / 256 (a formula ranking inside the peer's own query).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import { buildApp, type App } from '../../src/app.js';
import { loadConfig } from '../../src/config/index.js';
import { machine } from '../lib/machine.js';

const { values } = parseArgs({
  options: {
    corpus: { type: 'string' },
    dir: { type: 'string' },
    queries: { type: 'string', default: '100' },
    out: { type: 'string' },
    workload: { type: 'string', default: join(process.cwd(), '..', 'shared', 'tools', 'synth-corpus', 'workload.json') },
  },
});
if (!values.corpus || !values.dir) throw new Error('--corpus and --dir are required');
mkdirSync(values.dir, { recursive: true });
const main = join(process.cwd(), 'dist', 'src', 'main.js');
const { DATABASE_URL: _d, REDIS_URL: _r, ...baseEnv } = process.env;
const env = { ...baseEnv, LECTERN_DATA_DIR: values.dir, LECTERN_LOAD_DEMO_CORPUS: 'false', LECTERN_LOG_LEVEL: 'warn' };

// 1. The data directory, built once through the service's own ingest.
let ingest: unknown = 'reused';
if (!existsSync(join(values.dir, 'lectern.db'))) {
  const t0 = Date.now();
  const r = spawnSync(process.execPath, [main, 'ingest', '--format', 'lectern', values.corpus], { env, stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8', maxBuffer: 1 << 26 });
  if (r.status !== 0) throw new Error(`ingest failed (${r.status})`);
  ingest = { seconds: (Date.now() - t0) / 1000 };
  console.error('ingest', ingest);
}

// 2. A synthetic L2 model: 200 oblivious trees of depth 6 over 20 v1 features.
const L2_FEATURES = ['rrf', 'fulltext', 'fulltext_rank', 'bm25_title', 'bm25_abstract', 'bm25_body', 'phrase_bonus', 'proximity', 'age_days', 'has_abstract', 'has_full_text', 'is_journal_article', 'is_review', 'is_preprint', 'cited_by', 'passage_score', 'passage_rank', 'passage_field', 'passage_position', 'is_book'];
let seed = 12345;
const rnd = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
const modelPath = join(values.dir, 'bench-l2.json');
{
  const borders = L2_FEATURES.map(() => Array.from({ length: 8 }, () => rnd() * 20).sort((a, b) => a - b));
  const trees = Array.from({ length: 200 }, () => ({
    leaf_values: Array.from({ length: 64 }, () => rnd() - 0.5),
    splits: Array.from({ length: 6 }, () => {
      const f = Math.floor(rnd() * L2_FEATURES.length);
      return { float_feature_index: f, border: borders[f]![Math.floor(rnd() * 8)]!, split_type: 'FloatFeature' };
    }),
  }));
  writeFileSync(
    modelPath,
    JSON.stringify({
      features_info: { float_features: L2_FEATURES.map((name, i) => ({ feature_index: i, flat_feature_index: i, borders: borders[i], has_nans: true, nan_value_treatment: 'AsFalse', feature_id: name })) },
      oblivious_trees: trees,
      scale_and_bias: [1, [0]],
    }),
  );
}

type Q = { text: string };
const workload = JSON.parse(readFileSync(values.workload!, 'utf8')) as Record<string, Q[]>;
const n = Number(values.queries);
const classes = ['or', 'phrase'] as const;
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return +s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!.toFixed(3);
};

const FORMULA_LEXICAL = 'fulltext + 2 * bm25_title + 0.5 * bm25_abstract + phrase_bonus + proximity';
const FORMULA_RETRIEVAL = 'fulltext * (1 + 1 / fulltext_rank) + 100 * rrf';
const VARIANTS: Record<string, Record<string, unknown>> = {
  control: { candidate_ranking: 'rrf', l2_rerank: 'off' },
  l1_retrieval: { l1: { formula: FORMULA_RETRIEVAL }, l2_rerank: 'off' },
  l1_lexical: { l1: { formula: FORMULA_LEXICAL }, l2_rerank: 'off' },
  l2: { candidate_ranking: 'rrf', l2_rerank: 'catboost' },
  l1_l2: { l1: { formula: FORMULA_LEXICAL }, l2_rerank: 'catboost' },
};

let segments: unknown = null;
async function measure(depth: number): Promise<Record<string, unknown>> {
  const config = loadConfig({}, { dataDir: values.dir!, loadDemoCorpus: false, logLevel: 'silent', port: 0, ranking: { candidateDepth: depth, l2Models: `documents=${modelPath}` } as never, rateLimits: { search: { capacity: 1_000_000, refillPerSecond: 1_000_000 } } as never });
  const app: App = await buildApp(config);
  // steady state: background (tiered) merging run to idle, as the serving process's timer does
  const idx = app.indexes!.get('documents');
  const segmentsBefore = idx.stats().segments;
  const tm = Date.now();
  while (idx.mergeStep().state !== 'idle');
  // the first run's merge is the one that did the work; later runs find the index merged
  segments ??= { before_merge: segmentsBefore, after_merge: idx.stats().segments, merge_seconds: (Date.now() - tm) / 1000 };
  console.error('segments', segments);
  const acct = await app.accounts.create({ email: `bench-${depth}-${Date.now()}@example.org`, credits: 1_000_000_000, eligible: false });
  const key = acct.apiKey;
  const run = async (body: Record<string, unknown>) => {
    const res = await app.http.inject({ method: 'POST', url: '/v2/search/', headers: { 'x-api-key': key }, payload: { limit: 10, tracing: true, ...body } });
    if (res.statusCode !== 200) throw new Error(`${res.statusCode} ${res.body.slice(0, 300)}`);
    const j = res.json() as { timings: { total_us: number }; retrieval_traces: { branch: string; us?: number; stages?: { stage: string; us: number; groups_us?: Record<string, number> }[] }[]; hits: unknown[] };
    const ranking = j.retrieval_traces.find((t) => t.branch === 'ranking')!;
    return { total: j.timings.total_us / 1000, ranking: (ranking.us ?? 0) / 1000, stages: (ranking.stages ?? []) as { stage: string; us: number; groups_us?: Record<string, number> }[], hits: j.hits.length };
  };
  const out: Record<string, unknown> = {};
  for (const cls of classes) {
    const queries = workload[cls]!.slice(0, n);
    for (const q of queries.slice(0, 10)) for (const v of Object.values(VARIANTS)) await run({ query: q.text, ...v }); // warm-up
    const totals: Record<string, number[]> = Object.fromEntries(Object.keys(VARIANTS).map((k) => [k, []]));
    const added: Record<string, number[]> = Object.fromEntries(Object.keys(VARIANTS).map((k) => [k, []]));
    const stage: Record<string, number[]> = Object.fromEntries(Object.keys(VARIANTS).map((k) => [k, []]));
    const perStage: Record<string, Record<string, number[]>> = Object.fromEntries(Object.keys(VARIANTS).map((k) => [k, {}]));
    for (const q of queries) {
      const control = await run({ query: q.text, ...VARIANTS['control'] });
      for (const [name, v] of Object.entries(VARIANTS)) {
        const r = name === 'control' ? control : await run({ query: q.text, ...v });
        totals[name]!.push(r.total);
        added[name]!.push(r.total - control.total);
        stage[name]!.push(r.ranking);
        for (const st of r.stages) {
          (perStage[name]![st.stage] ??= []).push(st.us / 1000);
          // the features stage's time per group (document records, lexical pass, citations)
          for (const [g, gus] of Object.entries(st.groups_us ?? {})) (perStage[name]![`${st.stage}.${g}`] ??= []).push(gus / 1000);
        }
      }
    }
    out[cls] = Object.fromEntries(
      Object.keys(VARIANTS).map((name) => [
        name,
        {
          total_ms: { p50: pct(totals[name]!, 50), p99: pct(totals[name]!, 99) },
          added_vs_control_ms: { p50: pct(added[name]!, 50), p99: pct(added[name]!, 99) },
          ranking_stage_ms: { p50: pct(stage[name]!, 50), p99: pct(stage[name]!, 99) },
          stages_ms_p50: Object.fromEntries(Object.entries(perStage[name]!).map(([s, xs]) => [s, pct(xs, 50)])),
        },
      ]),
    );
    console.error(depth, cls, JSON.stringify(out[cls]));
  }
  await app.close();
  return out;
}

// 3. Peer: SQLite FTS5, weighted bm25 formula over the top 100 / 256.
async function peer(): Promise<Record<string, unknown>> {
  const path = join(values.dir!, 'fts5-peer.db');
  const fresh = !existsSync(path);
  const db = new Database(path);
  if (fresh) {
    db.exec(`PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; CREATE VIRTUAL TABLE docs USING fts5(title, abstract, body, tokenize = 'porter unicode61');`);
    const ins = db.prepare('INSERT INTO docs (title, abstract, body) VALUES (?, ?, ?)');
    const rl = createInterface({ input: createReadStream(values.corpus!) });
    let batch: [string, string, string][] = [];
    const flush = db.transaction((rows: [string, string, string][]) => rows.forEach((r) => ins.run(...r)));
    for await (const line of rl) {
      if (!line.trim()) continue;
      const d = JSON.parse(line) as { title?: string; abstract?: string; body?: string };
      batch.push([d.title ?? '', d.abstract ?? '', d.body ?? '']);
      if (batch.length === 5000) {
        flush(batch);
        batch = [];
      }
    }
    flush(batch);
  }
  const ftsQuery = (text: string) => {
    const words = text.match(/"[^"]+"|[\p{L}\p{N}]+/gu) ?? [];
    return words.map((w) => (w.startsWith('"') ? w : `"${w}"`)).join(' OR ');
  };
  const out: Record<string, unknown> = {};
  for (const depth of [100, 256]) {
    const stmt = db.prepare(`SELECT rowid, bm25(docs, 2.0, 1.0, 1.0) + 0.5 * bm25(docs, 1.0, 0.0, 0.0) AS s FROM docs WHERE docs MATCH ? ORDER BY s LIMIT ${depth}`);
    for (const cls of classes) {
      const queries = workload[cls]!.slice(0, n);
      for (const q of queries.slice(0, 10)) stmt.all(ftsQuery(q.text));
      const lat: number[] = [];
      for (const q of queries) {
        const t = process.hrtime.bigint();
        stmt.all(ftsQuery(q.text));
        lat.push(Number(process.hrtime.bigint() - t) / 1e6);
      }
      out[`${cls}_top${depth}`] = { p50_ms: pct(lat, 50), p99_ms: pct(lat, 99) };
    }
  }
  db.close();
  return out;
}

const started = machine();
const results: Record<string, unknown> = {};
for (const depth of [100, 256]) results[`candidates_${depth}`] = await measure(depth);
const peerResults = await peer();
const ratio = (depth: number, cls: string, variant: string) => {
  const m = ((results[`candidates_${depth}`] as Record<string, Record<string, { ranking_stage_ms: { p50: number } }>>)[cls]![variant]!.ranking_stage_ms.p50);
  const p = (peerResults[`${cls}_top${depth}`] as { p50_ms: number }).p50_ms;
  return +(m / p).toFixed(2);
};
const report = {
  benchmark: 'ranking pipeline added latency (docs/ranking.md)',
  machine: started,
  load_average_1m_at_end: Math.round(loadavg()[0]! * 100) / 100,
  corpus: values.corpus,
  index_segments: segments,
  queries_per_class: n,
  ingest,
  formulas: { l1_lexical: FORMULA_LEXICAL, l1_retrieval: FORMULA_RETRIEVAL },
  l2_model: { trees: 200, depth: 6, features: L2_FEATURES.length },
  results,
  peer: { name: 'SQLite FTS5 (better-sqlite3, porter unicode61): weighted bm25 expression, top 100 / 256, in process', results: peerResults },
  ratios_ranking_stage_p50_vs_peer_p50: Object.fromEntries(
    [100, 256].flatMap((d) => classes.flatMap((c) => ['l1_lexical', 'l2', 'l1_l2'].map((v) => [`${c}_${v}_${d}`, ratio(d, c, v)]))),
  ),
  notes:
    'added_vs_control_ms: the variant\'s timings.total_us minus the control\'s for the same query (paired; includes the deeper retrieval of the pool); ranking_stage_ms: the ranking trace\'s time (features, L1, L2). The peer ranks by an expression inside its own top-N query; the ratio compares Lectern\'s stage time with the peer\'s whole query.',
};
if (values.out) writeFileSync(values.out, `${JSON.stringify(report, null, 2)}\n`);
console.log(JSON.stringify(report, null, 2));
process.exit(0);
