// Cost of a real-size encoder through Lectern's own encoder path (ADR 0285): the model directory built
// by bench/models/build-bert-onnx.ts (BERT 6 x 384, ~22.6M parameters, the shape of all-MiniLM-L6-v2,
// random weights) loaded by loadOnnxTextEncoder, the adapter `dense_encoder.dir`, the server and
// `lectern models check-encoder` use. Per runtime thread count (each in its own child process, so RSS is
// that configuration's): load time and RSS, document encoding of a sample of the synthetic corpus
// (title + abstract as the vectorizer builds them, handed over 64 at a time as EncoderVectorizer does),
// wall time and process CPU time (the machine is shared: CPU seconds per document is what the model costs
// on a core of its own; wall documents/s is what it got here), single short query latency (SciFact
// claims, one at a time as search does), and the stored vector file size of the sample
// (SegmentVectors.fromRows(...).serialize(), the bytes `seg-N.lsg.vec-<model>` holds) scaled to 100k.
// Also checks that the graph's output is [batch, tokens, 384] and that padding does not change a pooled
// vector.
//   node dist/bench/models/encoder.bench.js [--model-dir tmp/models/bert-6x384] [--corpus tmp/synth-100k.jsonl]
//     [--docs 1000] [--queries 200] [--threads 1,2] [--out bench/results/encoder-bert-6x384.json]
import { execFileSync } from 'node:child_process';
import { createReadStream, readFileSync, statSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import ort from 'onnxruntime-node';
import { loadOnnxTextEncoder } from '../../src/adapters/onnx/onnx-text-encoder.js';
import { SegmentVectors } from '../../src/engine/index.js';
import { documentText } from '../../src/search/dense-model.js';
import { machine } from '../lib/machine.js';

const { values } = parseArgs({
  options: {
    'model-dir': { type: 'string', default: 'tmp/models/bert-6x384' },
    corpus: { type: 'string', default: 'tmp/synth-100k.jsonl' },
    queries: { type: 'string', default: '/work/shared/data/ir/scifact/queries.jsonl' },
    docs: { type: 'string', default: '1000' },
    'query-count': { type: 'string', default: '200' },
    threads: { type: 'string', default: '1,2' },
    out: { type: 'string' },
    child: { type: 'string' },
    sample: { type: 'string' },
  },
});

const READ_BATCH = 64; // EncoderVectorizer hands the encoder this many documents at a time
const round = (x: number, d = 1): number => Math.round(x * 10 ** d) / 10 ** d;
const pct = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
const uptime = (): string => execFileSync('uptime', { encoding: 'utf8' }).trim();
const cpuSeconds = (u: NodeJS.CpuUsage): number => (u.user + u.system) / 1e6;

interface Sample {
  docs: { id: string; text: string }[];
  queries: string[];
  corpus: string;
  corpusLines: number;
  stride: number;
}

/** One thread configuration, in this (child) process. */
async function child(threads: number, samplePath: string, dir: string): Promise<Record<string, unknown>> {
  const sample = JSON.parse(readFileSync(samplePath, 'utf8')) as Sample;
  const rssStart = process.memoryUsage().rss;
  const t0 = performance.now();
  const enc = await loadOnnxTextEncoder({ dir, threads });
  const loadMs = performance.now() - t0;
  const rssLoaded = process.memoryUsage().rss;
  const texts = sample.docs.map((d) => d.text);

  // tokens per document (as encoded: truncated at max tokens) and unknown-token share
  const unk = 1;
  const lengths = texts.map((t) => enc.tokenIds(t).length).sort((a, b) => a - b);
  let unknown = 0;
  let all = 0;
  for (const t of texts) for (const id of enc.tokenIds(t)) (all++, id === unk && unknown++);
  const totalTokens = lengths.reduce((s, x) => s + x, 0);

  // warm-up, then the documents
  await enc.encode(texts.slice(0, 16), 'document');
  const loadBefore = loadavg()[0]!;
  const c0 = process.cpuUsage();
  const w0 = performance.now();
  const vectors: Float32Array[] = [];
  for (let at = 0; at < texts.length; at += READ_BATCH) vectors.push(...(await enc.encode(texts.slice(at, at + READ_BATCH), 'document')));
  const wallS = (performance.now() - w0) / 1000;
  const cpuS = cpuSeconds(process.cpuUsage(c0));
  const loadAfter = loadavg()[0]!;

  // queries, one at a time
  for (const q of sample.queries.slice(0, 5)) await enc.encode([q], 'query');
  const lat: number[] = [];
  const qc0 = process.cpuUsage();
  for (const q of sample.queries) {
    const s = performance.now();
    await enc.encode([q], 'query');
    lat.push(performance.now() - s);
  }
  const qCpuMs = (cpuSeconds(process.cpuUsage(qc0)) * 1000) / sample.queries.length;
  lat.sort((a, b) => a - b);
  const queryTokens = sample.queries.map((q) => enc.tokenIds(q).length).sort((a, b) => a - b);

  const out: Record<string, unknown> = {
    threads,
    model_id: enc.info.id,
    dims: enc.info.dims,
    pooling: enc.info.pooling,
    max_tokens: enc.info.maxTokens,
    load_ms: Math.round(loadMs),
    documents: {
      count: texts.length,
      tokens_per_doc: { mean: round(totalTokens / texts.length), p50: pct(lengths, 50), p95: pct(lengths, 95), max: lengths[lengths.length - 1], truncated_at_max: lengths.filter((l) => l >= enc.info.maxTokens).length },
      unknown_token_share: round(unknown / all, 5),
      wall_s: round(wallS, 2),
      docs_per_s_wall: round(texts.length / wallS, 2),
      tokens_per_s_wall: Math.round(totalTokens / wallS),
      cpu_s: round(cpuS, 2),
      cpu_ms_per_doc: round((cpuS * 1000) / texts.length, 1),
      docs_per_cpu_s: round(texts.length / cpuS, 2),
      cores_used: round(cpuS / wallS, 2),
      load_1m_before: round(loadBefore, 2),
      load_1m_after: round(loadAfter, 2),
    },
    queries: {
      count: lat.length,
      tokens: { p50: pct(queryTokens, 50), p95: pct(queryTokens, 95) },
      latency_ms: { p50: round(pct(lat, 50)), p95: round(pct(lat, 95)), mean: round(lat.reduce((s, x) => s + x, 0) / lat.length) },
      cpu_ms_per_query: round(qCpuMs),
    },
    rss_mib: { before_load: round(rssStart / 2 ** 20), after_load: round(rssLoaded / 2 ** 20), after_encoding: round(process.memoryUsage().rss / 2 ** 20), peak: round((process.resourceUsage().maxRSS * 1024) / 2 ** 20) },
  };

  if (threads === Number(String(values.threads).split(',')[0])) {
    // stored vector file of the sample, as the vectorizer attaches it to a segment
    const file = SegmentVectors.fromRows(enc.info.id, enc.info.dims, vectors).serialize().byteLength;
    out['vector_file'] = { sample_docs: vectors.length, bytes: file, bytes_per_doc: round(file / vectors.length, 1), scaled_to_100k_mib: round(((file / vectors.length) * 100_000) / 2 ** 20) };
    // padding leaves a pooled vector unchanged: a short text alone vs. batched with a long one
    const short = sample.queries[0]!;
    const [alone] = await enc.encode([short], 'document');
    const [padded] = await enc.encode([short, texts.find((t) => enc.tokenIds(t).length > 100)!], 'document');
    let diff = 0;
    for (let i = 0; i < alone!.length; i++) diff = Math.max(diff, Math.abs(alone![i]! - padded![i]!));
    // the graph's raw output shape
    const session = await ort.InferenceSession.create(join(dir, 'model.onnx'), { intraOpNumThreads: 1 });
    const ids = [2, 10, 20, 30, 3, 2, 40, 3];
    const feeds = {
      input_ids: new ort.Tensor('int64', BigInt64Array.from(ids.map(BigInt)), [2, 4]),
      attention_mask: new ort.Tensor('int64', BigInt64Array.from([1, 1, 1, 1, 1, 1, 1, 0].map(BigInt)), [2, 4]),
      token_type_ids: new ort.Tensor('int64', new BigInt64Array(8), [2, 4]),
    };
    const r = await session.run(feeds);
    out['checks'] = {
      last_hidden_state_dims_for_2x4: r['last_hidden_state']!.dims,
      padding_max_abs_diff_of_pooled_vector: diff,
      padding_unchanged: diff < 1e-5,
    };
    await session.release();
  }
  await enc.close();
  return out;
}

async function sampleCorpus(path: string, n: number, lines: number): Promise<Sample> {
  const stride = Math.max(1, Math.floor(lines / n));
  const docs: Sample['docs'] = [];
  let i = 0;
  const rl = createInterface({ input: createReadStream(path), crlfDelay: Infinity });
  for await (const line of rl) {
    if (line.trim() === '') continue;
    if (i % stride === 0 && docs.length < n) {
      const r = JSON.parse(line) as { id: string; title: string; abstract: string | null };
      docs.push({ id: r.id, text: documentText(r.title, r.abstract) });
    }
    i++;
    if (docs.length >= n) {
      rl.close();
      break;
    }
  }
  return { docs, queries: [], corpus: path, corpusLines: lines, stride };
}

async function main(): Promise<void> {
  const dir = resolve(values['model-dir']!);
  if (values.child !== undefined) {
    process.stdout.write(JSON.stringify(await child(Number(values.child), values.sample!, dir)));
    return;
  }
  const n = Number(values.docs);
  const uptimeBefore = uptime();
  const lines = Number(execFileSync('wc', ['-l', values.corpus!], { encoding: 'utf8' }).trim().split(/\s+/)[0]);
  const sample = await sampleCorpus(values.corpus!, n, lines);
  sample.queries = readFileSync(values.queries!, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .slice(0, Number(values['query-count']))
    .map((l) => (JSON.parse(l) as { text: string }).text);
  const samplePath = resolve('tmp', `encoder-bench-sample-${process.pid}.json`);
  writeFileSync(samplePath, JSON.stringify(sample));
  const build = JSON.parse(readFileSync(join(dir, 'lectern-build.json'), 'utf8')) as Record<string, unknown>;
  const runs: Record<string, unknown>[] = [];
  for (const threads of values.threads!.split(',').map(Number)) {
    const stdout = execFileSync(process.execPath, [fileURLToPath(import.meta.url), '--child', String(threads), '--sample', samplePath, '--model-dir', dir, '--threads', values.threads!], { encoding: 'utf8', maxBuffer: 1 << 26 });
    const r = JSON.parse(stdout) as Record<string, unknown>;
    runs.push(r);
    process.stderr.write(`threads ${threads}: ${JSON.stringify((r as { documents: unknown }).documents)}\n`);
  }
  const result = {
    benchmark: 'encoder: a real-size BERT through Lectern\'s encoder path (loadOnnxTextEncoder, as dense_encoder.dir)',
    machine: machine(),
    uptime_before: uptimeBefore,
    uptime_after: uptime(),
    note: 'The machine is shared with other sessions (see load): wall documents/s is what this run got; cpu_ms_per_doc is the work per document, so 1000 / cpu_ms_per_doc is documents/s on one core of its own. Weights are random (no pretrained weights can be downloaded here): the cost per token is the real shape\'s, the vectors are meaningless.',
    model: { dir: values['model-dir'], model_file_bytes: statSync(join(dir, 'model.onnx')).size, model_file_mib: round(statSync(join(dir, 'model.onnx')).size / 2 ** 20), tokenizer_file_bytes: statSync(join(dir, 'tokenizer.json')).size, ...build },
    sample: { corpus: values.corpus, corpus_lines: lines, documents: sample.docs.length, every_nth_line: sample.stride, text: 'title + "\\n" + abstract (documentText, as the vectorizer encodes)', handed_over: `${READ_BATCH} documents per encode() call (EncoderVectorizer); the encoder batches 16 of similar length`, queries: `${sample.queries.length} SciFact claims (${values.queries}), one per encode() call` },
    runs,
  };
  const json = `${JSON.stringify(result, null, 2)}\n`;
  if (values.out !== undefined) writeFileSync(values.out, json);
  process.stdout.write(json);
  try {
    execFileSync('rm', ['-f', samplePath]);
  } catch {
    /* left in tmp/ */
  }
}

await main();
