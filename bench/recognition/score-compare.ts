// Scores the same realset results (their stored score inputs) with two builds' quality scores: this build's
// (SCORE_WEIGHTS, or the fitted weights of a fit-score.js --out file with --weights) and another build's (its
// dist folder, e.g. the base of a refit), and reports Spearman and
// Pearson with the share of checks passed, overall, by group (devset.json's TeX Live PDFs, kinds.json's
// documents) and among the documents that fail a check (ADR 0376). In process: the inputs are those the
// converter stored, so both scores read the same conversion.
//   node dist/bench/recognition/score-compare.js --base OTHER/dist [--weights FIT.json] --tune A.json,B.json --report C.json,D.json [--out FILE]
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { scoreReport, SCORE_WEIGHTS, type ScoreInputs, type ScoreWeights } from '../../src/recognition/report/score.js';
import { pearson, spearman } from './metrics.js';

const args = process.argv.slice(2);
const opt = (name: string): string | undefined => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : undefined);
const baseDist = opt('base');
if (!baseDist) {
  console.error('usage: score-compare --base OTHER/dist --tune A.json[,...] --report B.json[,...] [--out FILE]');
  process.exit(2);
}
const base = (await import(pathToFileURL(join(baseDist, 'src', 'recognition', 'report', 'score.js')).href)) as { scoreReport: typeof scoreReport; SCORE_WEIGHTS: object };

const weights: ScoreWeights = opt('weights') ? (JSON.parse(readFileSync(opt('weights')!, 'utf8')) as { fitted: { weights: ScoreWeights } }).fitted.weights : SCORE_WEIGHTS;

interface Doc { path: string; kind: string; group: string; split: string; share: { lectern?: number }; scoreInputs: ScoreInputs | null }
const load = (files: string): Doc[] => {
  const seen = new Set<string>();
  return files.split(',').filter(Boolean).flatMap((f) => (JSON.parse(readFileSync(f, 'utf8')) as { perDocument: Doc[] }).perDocument)
    .filter((d) => d.scoreInputs && d.share.lectern !== undefined && !seen.has(d.path) && !!seen.add(d.path));
};
const round = (x: number): number => Math.round(x * 1000) / 1000;
function measure(ds: Doc[]) {
  const y = ds.map((d) => d.share.lectern!);
  const before = ds.map((d) => base.scoreReport(d.scoreInputs!).value);
  const after = ds.map((d) => scoreReport(d.scoreInputs!, weights).value);
  const corr = (idx: number[]) => idx.length < 3 ? null : {
    documents: idx.length,
    before: { spearman: round(spearman(idx.map((i) => before[i]!), idx.map((i) => y[i]!))), pearson: round(pearson(idx.map((i) => before[i]!), idx.map((i) => y[i]!))) },
    after: { spearman: round(spearman(idx.map((i) => after[i]!), idx.map((i) => y[i]!))), pearson: round(pearson(idx.map((i) => after[i]!), idx.map((i) => y[i]!))) },
  };
  const all = ds.map((_, i) => i);
  const grades = (v: number[]) => Object.fromEntries(['A', 'B', 'C', 'D', 'F'].map((g) => {
    const idx = all.filter((i) => (v[i]! >= 0.9 ? 'A' : v[i]! >= 0.8 ? 'B' : v[i]! >= 0.65 ? 'C' : v[i]! >= 0.5 ? 'D' : 'F') === g);
    return [g, { documents: idx.length, meanShare: idx.length ? round(idx.reduce((a, i) => a + y[i]!, 0) / idx.length) : null }];
  }));
  return {
    all: corr(all),
    devset: corr(all.filter((i) => ds[i]!.group === 'devset')),
    kinds: corr(all.filter((i) => ds[i]!.group === 'kinds')),
    failing: corr(all.filter((i) => y[i]! < 1)),
    passingEveryCheck: all.filter((i) => y[i] === 1).length,
    byKind: Object.fromEntries([...new Set(ds.map((d) => d.kind))].filter((k) => k.startsWith('kinds/')).sort().map((k) => [k, corr(all.filter((i) => ds[i]!.kind === k))])),
    // Mean share of checks passed per grade: grades stay meaningful when A holds the documents that pass most.
    gradesBefore: grades(before),
    gradesAfter: grades(after),
  };
}
const tune = load(opt('tune') ?? '');
const report = load(opt('report') ?? '');
if (tune.some((d) => d.split !== 'tune') || report.some((d) => d.split !== 'report')) {
  console.error('--tune takes tune results, --report report results');
  process.exit(2);
}
const result = {
  bench: 'recognition-realset-score-compare',
  date: new Date().toISOString(),
  machine: { cpus: cpus().length, model: cpus()[0]?.model ?? 'unknown', loadavg: loadavg() },
  base: baseDist,
  tuneFiles: opt('tune') ?? null,
  reportFiles: opt('report') ?? null,
  weightsBefore: base.SCORE_WEIGHTS,
  weightsFrom: opt('weights') ?? 'SCORE_WEIGHTS',
  weightsAfter: weights,
  tune: tune.length ? measure(tune) : null,
  report: report.length ? measure(report) : null,
};
console.log(JSON.stringify({ tune: result.tune && { all: result.tune.all, devset: result.tune.devset, kinds: result.tune.kinds, failing: result.tune.failing }, report: result.report && { all: result.report.all, devset: result.report.devset, kinds: result.report.kinds, failing: result.report.failing } }, null, 1));
if (opt('out')) writeFileSync(opt('out')!, JSON.stringify(result, null, 1) + '\n');
