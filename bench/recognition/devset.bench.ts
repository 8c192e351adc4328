// Lectern against raw extractors in the same run (issue 17): the generated development set (exact ground
// truth, olmOCR-bench style checks) and the shared docling-pdf documents (edit distance, heading F1).
//   node dist/bench/recognition/devset.bench.js [--out FILE] [--data DIR] [--dump DIR]
// Tools compared: Lectern (convertDocument), `pdftotext` (reading order mode), `mutool convert -F text`, and
// pdf.js (pdfjs-dist, a development dependency: `getTextContent` per page, items joined as they come, a line
// break where pdf.js marks the end of a line, as its text layer and most pdf.js-based extractors do).
// Also reports the quality score's rank correlation (Spearman) and Pearson correlation with measured
// quality (1 - normalised edit distance) over every document that has a ground truth.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { basename, join } from 'node:path';
import { LocalProcessRunner } from '../../src/adapters/process/local-process-runner.js';
import { convertDocument } from '../../src/recognition/index.js';
import { repoRoot, sharedData } from '../../test/helpers/paths.js';
import { buildDevset, buildGenerated, buildProduced } from './devset/build.js';
import { check } from './devset/checks.js';
import type { DevCheck } from './devset/documents.js';
import { headingScores, normalizedEditDistance, pearson, spearman } from './metrics.js';

const args = process.argv.slice(2);
const opt = (name: string): string | undefined => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
const data = opt('data') ?? [join(sharedData, 'recognition'), join(repoRoot, '..', '..', 'shared', 'data', 'recognition')].find((d) => existsSync(d));
const dump = opt('dump');
const runner = new LocalProcessRunner();
const round = (x: number, d = 4): number => Math.round(x * 10 ** d) / 10 ** d;
const mean = (xs: number[]): number => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : NaN);
const devDir = join(repoRoot, 'bench', 'recognition', 'devset', 'work');
const TOOLS = ['lectern', 'pdftotext', 'mutool', 'pdfjs'] as const;
const BASELINES = ['pdftotext', 'mutool', 'pdfjs'] as const;
type Tool = (typeof TOOLS)[number];

/** `mutool convert -F text` writes only to a file. */
function mutoolText(pdf: string): string {
  const txt = join(devDir, 'mutool-output.txt');
  execFileSync('mutool', ['convert', '-F', 'text', '-o', txt, pdf], { stdio: 'ignore' });
  return readFileSync(txt, 'utf8');
}

/** pdf.js text: every text item of every page in content order, a newline after items that end a line. */
async function pdfjsText(pdf: string): Promise<string> {
  const pdfjs = await import('pdfjs-dist/legacy/build/pdf.mjs');
  const doc = await pdfjs.getDocument({ data: new Uint8Array(readFileSync(pdf)), verbosity: 0 }).promise;
  let out = '';
  for (let i = 1; i <= doc.numPages; i++) {
    const page = await doc.getPage(i);
    for (const item of (await page.getTextContent()).items) if ('str' in item) out += item.str + (item.hasEOL ? '\n' : '');
    out += '\n\n';
    page.cleanup();
  }
  await doc.destroy();
  return out;
}

async function run(tool: Tool, pdf: string): Promise<{ text: string; score?: number; grade?: string; components?: Record<string, number>; ms: number; pages?: number; ocrPages?: number; scoreInputs?: unknown }> {
  const t = performance.now();
  if (tool === 'lectern') {
    const r = await convertDocument(new Uint8Array(readFileSync(pdf)), { runner, pageMarkers: false });
    if (dump) {
      mkdirSync(dump, { recursive: true });
      writeFileSync(join(dump, `${basename(pdf)}.md`), r.markdown);
    }
    const c = r.report.score.components;
    // Factors below 1 only: what the score held against the document.
    const components = Object.fromEntries(Object.entries(c).filter(([, v]) => v < 1));
    // What the score is computed from, so that bench/recognition/fit-score.ts can refit its weights offline.
    const { pages, text, ocr, structure } = r.report;
    const scoreInputs = { pages, text, ocr, structure, format: r.report.input.format };
    return { text: r.markdown, score: r.report.score.value, grade: r.report.score.grade, components, ms: performance.now() - t, pages: r.report.pages.total, ocrPages: r.report.ocr.pages, scoreInputs };
  }
  const text = tool === 'pdftotext'
    ? execFileSync('pdftotext', [pdf, '-'], { encoding: 'utf8' })
    : tool === 'pdfjs'
      ? await pdfjsText(pdf)
      : mutoolText(pdf);
  return { text, ms: performance.now() - t };
}

const devPdfs = buildDevset(devDir);
// Documents made by LaTeX and LibreOffice (held out: not used to tune the converter or the score).
const produced = buildProduced(join(devDir, 'produced'));
// Generated calibration documents (devset/generated.ts): `fit` ones fit the score, `heldout` ones test it.
const generated = buildGenerated(join(devDir, 'generated'));
const corpora: { set: string; pdf: string; truth: string; checks: DevCheck[] }[] = [
  ...[...devPdfs, ...produced.pdfs].map((pdf) => ({ pdf, set: pdf.includes('/produced/') ? 'produced' : 'devset' })),
  ...generated.pdfs.map((g) => ({ pdf: g.pdf, set: g.set === 'fit' ? 'generated-fit' : 'heldout' })),
].map(({ pdf, set }) => ({
  set: `${set}${pdf.endsWith('.scan.pdf') ? '-scan' : ''}`,
  pdf,
  truth: readFileSync(pdf.replace(/\.pdf$/, '.md'), 'utf8'),
  checks: JSON.parse(readFileSync(pdf.replace(/\.pdf$/, '.checks.json'), 'utf8')) as DevCheck[],
}));
if (data) {
  const dir = join(data, 'docling-pdf', 'pdf');
  for (const f of readdirSync(dir).filter((x) => x.endsWith('.pdf')).sort()) {
    corpora.push({ set: 'docling-pdf', pdf: join(dir, f), truth: readFileSync(join(data, 'docling-pdf', 'groundtruth', f.replace(/\.pdf$/, '.md')), 'utf8'), checks: [] });
  }
  // The shared scanned page, upright and rotated (no text layer: the raw extractors get nothing).
  const ocrDir = join(data, 'docling-ocr');
  if (existsSync(ocrDir)) {
    const truth = readFileSync(join(ocrDir, 'ocr_test.groundtruth.md'), 'utf8');
    for (const f of readdirSync(ocrDir).filter((x) => x.endsWith('.pdf')).sort()) corpora.push({ set: 'docling-ocr', pdf: join(ocrDir, f), truth, checks: [] });
  }
}

const docs = [];
const calibration: { score: number; quality: number; heldOut: boolean }[] = [];
// --only PREFIX[,PREFIX...]: the sets whose name starts with one of them (a quicker look while developing).
const only = opt('only')?.split(',');
for (const c of corpora.filter((x) => !only || only.some((o) => x.set.startsWith(o)))) {
  const per: Record<string, unknown> = {};
  for (const tool of TOOLS) {
    const r = await run(tool, c.pdf);
    const ed = normalizedEditDistance(r.text, c.truth);
    const h = headingScores(r.text, c.truth);
    const passed = c.checks.filter((k) => check(k, r.text));
    per[tool] = {
      editDistance: round(ed),
      headingF1: round(h.f1, 3),
      ...(c.checks.length ? { checksPassed: passed.length, checksFailed: c.checks.filter((k) => !passed.includes(k)) } : {}),
      ...(r.score !== undefined ? { score: r.score, grade: r.grade, components: r.components, pages: r.pages, ocrPages: r.ocrPages, scoreInputs: r.scoreInputs } : {}),
      ms: round(r.ms, 1),
    };
    if (tool === 'lectern' && r.score !== undefined) calibration.push({ score: r.score, quality: 1 - ed, heldOut: c.set.startsWith('heldout') });
  }
  docs.push({ set: c.set, doc: basename(c.pdf), checks: c.checks.length, ...per });
}

type Row = (typeof docs)[number] & Record<Tool, { editDistance: number; headingF1: number; checksPassed?: number }>;
const rows = docs as Row[];
const summary: Record<string, unknown> = {};
for (const set of ['devset', 'devset-scan', 'produced', 'produced-scan', 'generated-fit', 'generated-fit-scan', 'heldout', 'heldout-scan', 'docling-pdf', 'docling-ocr', 'all']) {
  const rs = rows.filter((r) => set === 'all' || r.set === set);
  if (!rs.length) continue;
  const checks = rs.reduce((n, r) => n + r.checks, 0);
  summary[set] = Object.fromEntries(TOOLS.map((t) => [t, {
    meanEditDistance: round(mean(rs.map((r) => r[t].editDistance))),
    headingF1Macro: round(mean(rs.map((r) => r[t].headingF1)), 3),
    ...(checks ? { checkPassRate: round(rs.reduce((n, r) => n + (r[t].checksPassed ?? 0), 0) / checks, 3) } : {}),
    // Documents where this tool's edit distance is more than 0.02 worse than the best raw extractor's.
    ...(t === 'lectern' ? { docsWorseThanBestBaselineBy002: rs.filter((r) => r.lectern.editDistance > Math.min(...BASELINES.map((b) => r[b].editDistance)) + 0.02).map((r) => r.doc) } : {}),
  }]));
}

// OCR seconds per page: wall time of Lectern on the scanned variants (render + OCR + layout) over their pages.
const scans = rows.filter((r) => r.set.endsWith('-scan')).map((r) => r.lectern as unknown as { ms: number; pages: number });
const ocrSecondsPerPage = scans.length ? round(scans.reduce((n, r) => n + r.ms, 0) / 1000 / scans.reduce((n, r) => n + r.pages, 0), 2) : null;

const result = {
  benchmark: 'recognition-devset',
  date: new Date().toISOString(),
  machine: { cores: cpus().length, cpu: cpus()[0]?.model, node: process.version, load_average_1m_at_end: Math.round(loadavg()[0]! * 100) / 100, pdfjs: (await import('pdfjs-dist/legacy/build/pdf.mjs')).version, pdftotext: execFileSync('pdftotext', ['-v'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).split('\n')[0] || 'pdftotext', mutool: execFileSync('mutool', ['-v'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim() || 'mutool' },
  summary,
  ocrSecondsPerPage,
  producedNotBuilt: produced.missing,
  generatedNotBuilt: generated.missing,
  scoreCalibration: {
    documents: calibration.length,
    measure: '1 - normalised edit distance of Lectern output against the ground truth',
    spearman: round(spearman(calibration.map((p) => p.score), calibration.map((p) => p.quality)), 3),
    pearson: round(pearson(calibration.map((p) => p.score), calibration.map((p) => p.quality)), 3),
    fit: (() => {
      const h = calibration.filter((p) => !p.heldOut);
      return { documents: h.length, spearman: round(spearman(h.map((p) => p.score), h.map((p) => p.quality)), 3), pearson: round(pearson(h.map((p) => p.score), h.map((p) => p.quality)), 3) };
    })(),
    // The generated held-out documents and their scans alone (devset/generated.ts, HELDOUT_SEEDS): never used
    // to tune the converter or to fit the score's weights.
    heldOut: (() => {
      const h = calibration.filter((p) => p.heldOut);
      return { documents: h.length, spearman: round(spearman(h.map((p) => p.score), h.map((p) => p.quality)), 3), pearson: round(pearson(h.map((p) => p.score), h.map((p) => p.quality)), 3) };
    })(),
  },
  docs,
};
const out = opt('out') ?? join(repoRoot, 'bench', 'results', `recognition-devset-${result.date.slice(0, 10)}.json`);
writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
console.log(JSON.stringify({ summary, ocrSecondsPerPage, scoreCalibration: result.scoreCalibration }, null, 2));
console.log(`wrote ${out}`);
