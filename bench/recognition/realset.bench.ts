// Scores Lectern against raw extractors on the real development set (issue 28): PDFs from Debian packages
// with checks written from their LaTeX sources (bench/recognition/realset/build.ts). By default only the
// `report` split is scored (tune on the other one, never on this one).
//   sh bench/recognition/realset/fetch.sh [WORK]            # apt-get download + dpkg-deb -x
//   node dist/bench/recognition/realset.bench.js [--root WORK/root] [--split report|tune|all] [--max-pages 60]
//     [--every 1] [--set devset|kinds|all] [--kinds-work WORK/kinds] [--skip-scored A.json,...] [--out FILE] [--dump DIR]
//     [--base OTHER/dist] [--only-cells] [--only PATH-PART,...] [--kinds-manifest FILE]
// It reads both manifests: devset.json (TeX Live PDFs, build.ts) and kinds.json (scans as PDF and DJVU,
// slides, EPUB, non-TeX PDFs: kinds.ts, ADR 0338), and reports per kind of document. Each scored document
// keeps Lectern's score and the score's inputs, so that fit-score.ts can refit the weights (--realset).
// Tools: Lectern (convertDocument, in process), `pdftotext` (reading order; `djvutxt` on DJVU, the text
// layer a raw extractor reads; not run on EPUB), `mutool draw -F txt` (PDF and EPUB; not run on DJVU). Each
// document's sha256 is checked against devset.json first (a different file is skipped and counted).
// Check types: present, order (olmOCR-bench), heading (the title as a Markdown heading: raw extractors
// have no headings, so they cannot pass it), cell (table cell relations, GFM tables). Also the word edit
// distance on the present checks (presentWordDistance), where split words and lost spaces show.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { LocalProcessRunner } from '../../src/adapters/process/local-process-runner.js';
import { convertDocument } from '../../src/recognition/index.js';
import { repoRoot } from '../../test/helpers/paths.js';
import { check } from './devset/checks.js';
import { normalizeForDistance, spearman } from './metrics.js';
import type { RealCheck, RealDocument } from './realset/build.js';
import { cellPasses } from './realset/tables.js';
import type { KindDocument } from './realset/kinds.js';
import type { ScoreInputs } from '../../src/recognition/report/score.js';

const args = process.argv.slice(2);
const opt = (name: string): string | undefined => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : undefined);
const here = join(repoRoot, 'bench', 'recognition', 'realset');
const root = opt('root') ?? join(here, 'work', 'root');
const split = opt('split') ?? 'report';
const dump = opt('dump');
// --base DIST adds `lectern-base`: the converter of another build (its dist folder, e.g. main's), run on each
// document right after this build's, for a before/after comparison in the same run.
const baseDist = opt('base');
const ALL_TOOLS = ['lectern', 'lectern-base', 'pdftotext', 'mutool'] as const;
type Tool = (typeof ALL_TOOLS)[number];
const TOOLS: readonly Tool[] = ALL_TOOLS.filter((t) => t !== 'lectern-base' || baseDist);
const baseConvert = baseDist ? ((await import(pathToFileURL(join(baseDist, 'src', 'recognition', 'index.js')).href)) as { convertDocument: typeof convertDocument }).convertDocument : null;
const KINDS = ['present', 'order', 'heading', 'cell'] as const;
const runner = new LocalProcessRunner();
const key = (s: string) => s.normalize('NFKC').toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');

/** Whether a tool's output passes a check. */
export function passes(c: RealCheck, out: string): boolean {
  if (c.kind === 'heading') {
    // The PDF numbers its sections ("2.1 Usage", "4.1) Printer Installation" as word processors number
    // outlines, "D Connection macros", "§1. Introduction"); the source's title has no number.
    const want = key(c.text);
    return [...out.matchAll(/^\s{0,3}#{1,6}\s+(.+?)\s*#*\s*$/gm)].some((m) => key(m[1]!.replace(/^(?:§\s*\d+(?:\.\d+)*[.)]?|\d+(?:\.\d+)*[.)]?|[A-Z](?:\.\d+)+\.?|[A-Z]\.|[IVX]+\.|[A-Z](?=\s+\p{Lu}))\s+/u, '')) === want);
  }
  if (c.kind === 'cell') return cellPasses(c, out);
  return check(c, out);
}

/** Words of a text as the checks compare them (NFKC, Markdown removed, lower case, split at white space). */
const words = (s: string): string[] => normalizeForDistance(s).toLowerCase().split(' ').filter(Boolean);

/**
 * Word edit distance of a tool's output on the document's `present` checks (sentences taken from the source):
 * for each check, the fewest word insertions, deletions and substitutions that turn some stretch of the
 * output into the check's words, divided by the check's word count (1 when no stretch shares an anchor
 * word), averaged over the checks. A split word ("Nov ember") costs two edits, a lost space ("ofthe") two.
 */
export function presentWordDistance(checks: readonly RealCheck[], out: string): { sum: number; n: number } {
  const ow = words(out);
  const at = new Map<string, number[]>();
  ow.forEach((w, i) => {
    const l = at.get(w);
    if (l) l.push(i);
    else at.set(w, [i]);
  });
  let sum = 0;
  let n = 0;
  for (const c of checks) {
    if (c.kind !== 'present') continue;
    const cw = words(c.text);
    if (!cw.length) continue;
    n++;
    const starts = new Set<number>();
    for (let k = 0; k < Math.min(4, cw.length); k++) for (const i of (at.get(cw[k]!) ?? []).slice(0, 200)) starts.add(Math.max(0, i - k - 2));
    let best = cw.length;
    for (const s of starts) {
      const win = ow.slice(s, s + cw.length + 6);
      // Semi-global: the stretch may start anywhere in the window and end anywhere.
      let prev = new Array<number>(win.length + 1).fill(0);
      for (let i = 1; i <= cw.length; i++) {
        const cur = new Array<number>(win.length + 1);
        cur[0] = i;
        for (let j = 1; j <= win.length; j++) cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (cw[i - 1] === win[j - 1] ? 0 : 1));
        prev = cur;
      }
      best = Math.min(best, ...prev);
      if (best === 0) break;
    }
    sum += best / cw.length;
  }
  return { sum, n };
}

/** One document to score, from either manifest. */
interface Scored {
  readonly path: string;
  readonly file: string;
  readonly sha256: string;
  readonly pages: number;
  readonly split: 'tune' | 'report';
  readonly checks: readonly RealCheck[];
  /** For the per-kind report: "publishers/latex-doc" (devset.json) or "kinds/scan-pdf" (kinds.json). */
  readonly kind: string;
  readonly group: 'devset' | 'kinds';
  readonly format: 'pdf' | 'djvu' | 'epub';
}

/** Kind for the report: the package's collection and the document's kind ("publishers/latex-doc"). */
const kindOf = (d: RealDocument): string => `${d.package.replace(/^texlive-/, '').replace(/-doc$/, '')}/${d.kind}`;

/** Whether a raw extractor reads the format at all (a tool that cannot is not scored on it). */
export const applies = (tool: Tool, format: Scored['format']): boolean => tool === 'lectern' || tool === 'lectern-base' || (tool === 'pdftotext' ? format !== 'epub' : format !== 'djvu');

/** Lectern's quality score of the last document it converted (for the score's rank correlation). */
let last: { value: number; grade: string; inputs: ScoreInputs } | null = null;

async function run(tool: Tool, file: string, format: Scored['format']): Promise<string> {
  if (tool === 'lectern') {
    const r = await convertDocument(new Uint8Array(readFileSync(file)), { runner });
    const { pages, text, ocr, structure } = r.report;
    last = { value: r.report.score.value, grade: r.report.score.grade, inputs: { pages, text, ocr, structure, format: r.report.input.format } };
    return r.markdown;
  }
  if (tool === 'lectern-base') return (await baseConvert!(new Uint8Array(readFileSync(file)), { runner })).markdown;
  if (tool === 'pdftotext') {
    if (format === 'djvu') return execFileSync('djvutxt', [file], { maxBuffer: 256 << 20 }).toString('utf8');
    return execFileSync('pdftotext', ['-q', file, '-'], { maxBuffer: 256 << 20 }).toString('utf8');
  }
  return execFileSync('mutool', ['draw', '-q', '-F', 'txt', '-o', '-', file], { maxBuffer: 256 << 20, stdio: ['ignore', 'pipe', 'ignore'] }).toString('utf8');
}

/** The documents of both manifests, as the bench scores them. */
export function loadDocuments(root: string, kindsWork: string, kindsManifest = join(here, 'kinds.json')): Scored[] {
  const set = JSON.parse(readFileSync(join(here, 'devset.json'), 'utf8')) as { documents: RealDocument[] };
  const out: Scored[] = set.documents.map((d) => ({ path: d.path, file: join(root, d.path), sha256: d.sha256, pages: d.pages, split: d.split, checks: d.checks, kind: kindOf(d), group: 'devset', format: 'pdf' }));
  const kindsFile = kindsManifest;
  if (existsSync(kindsFile)) {
    const kinds = JSON.parse(readFileSync(kindsFile, 'utf8')) as { documents: KindDocument[] };
    for (const d of kinds.documents) {
      const file = d.base === 'root' ? join(root, d.file) : join(kindsWork, d.file);
      const format = d.file.endsWith('.djvu') ? 'djvu' : d.file.endsWith('.epub') ? 'epub' : 'pdf';
      out.push({ path: d.base === 'root' ? d.file : `${d.kind}:${d.from}`, file, sha256: d.sha256, pages: d.pages, split: d.split, checks: d.checks, kind: `kinds/${d.kind}`, group: 'kinds', format });
    }
  }
  return out;
}

if (process.argv[1]?.endsWith('realset.bench.js')) {
  const kindsWork = opt('kinds-work') ?? join(root, '..', 'kinds');
  const group = opt('set') ?? 'all';
  const skipScored = new Set((opt('skip-scored')?.split(',') ?? []).flatMap((f) => (JSON.parse(readFileSync(f, 'utf8')) as { perDocument: { path: string }[] }).perDocument.map((d) => d.path)));
  // --max-pages and --every keep a run short on a loaded machine (the defaults score every report document
  // of up to 60 pages; an EPUB's "pages" are its spine files and it is always scored); the JSON says which
  // were scored.
  const maxPages = Number(opt('max-pages') ?? 60);
  const every = Number(opt('every') ?? 1);
  // --kinds-manifest FILE: another kinds.json (extra scans made from tune documents, for tuning only).
  const docs = loadDocuments(root, kindsWork, opt('kinds-manifest'))
    .filter((d) => (group === 'all' || d.group === group) && (split === 'all' || d.split === split) && (d.pages <= maxPages || d.format === 'epub'))
    .filter((d, i) => d.group === 'kinds' || i % every === 0)
    // --skip-scored A.json,B.json: leave out documents an earlier run scored (a set that grew is scored for its new part only).
    .filter((d) => !skipScored.has(d.path))
    .filter((d) => !args.includes('--only-cells') || d.checks.some((c) => c.kind === 'cell'))
    // --kind wordproc: one kind of kinds.json only (a kind added to the set is scored alone).
    .filter((d) => !opt('kind') || d.kind === `kinds/${opt('kind')}`)
    // --only A,B: only documents whose path contains one of these strings (a defect's documents and a control set).
    .filter((d) => !opt('only') || opt('only')!.split(',').some((s) => d.path.includes(s)));
  const load = loadavg();
  type Count = { passed: number; total: number };
  type Tally = Record<string, Count>;
  const zero = (): Record<Tool, Tally> => Object.fromEntries(TOOLS.map((t) => [t, Object.fromEntries(KINDS.map((k) => [k, { passed: 0, total: 0 }]))])) as Record<Tool, Tally>;
  const tally = zero();
  const byKindType: Record<string, Record<Tool, Tally>> = {};
  const byKind: Record<string, Record<Tool, Count>> = {};
  const docsByKind: Record<string, number> = {};
  const ms = Object.fromEntries(TOOLS.map((t) => [t, 0])) as Record<Tool, number>;
  const toolPages = Object.fromEntries(TOOLS.map((t) => [t, 0])) as Record<Tool, number>;
  const wed = Object.fromEntries(TOOLS.map((t) => [t, { sum: 0, n: 0 }])) as Record<Tool, { sum: number; n: number }>;
  // Cell checks by the source table's rules (vertical, horizontal only, none) and spanning headers.
  const cellsBy: Record<string, Record<string, { passed: number; total: number }>> = {};
  const wedByKind: Record<string, Record<Tool, { sum: number; n: number }>> = {};
  const perDoc: { path: string; pages: number; kind: string; group: string; split: string; share: Partial<Record<Tool, number>>; checks: number; score: number | null; grade: string | null; scoreInputs: ScoreInputs | null; failed: Partial<Record<Tool, RealCheck[]>> }[] = [];
  let pages = 0;
  let missing = 0;
  let changed = 0;
  let rebuilt = 0;
  if (dump) mkdirSync(dump, { recursive: true });
  for (const d of docs) {
    if (!existsSync(d.file)) {
      missing++;
      continue;
    }
    if (createHash('sha256').update(readFileSync(d.file)).digest('hex') !== d.sha256) {
      // An installed file that differs is another document: skipped. A file kinds.ts made (a scan, a
      // ReportLab PDF) differs when another version of a tool made it: scored, and counted.
      if (d.group === 'devset' || d.file.startsWith(join(root, '/'))) {
        changed++;
        continue;
      }
      rebuilt++;
    }
    pages += d.pages;
    docsByKind[d.kind] = (docsByKind[d.kind] ?? 0) + 1;
    const share: Partial<Record<Tool, number>> = {};
    const failed: Partial<Record<Tool, RealCheck[]>> = {};
    last = null;
    for (const tool of TOOLS) {
      if (!applies(tool, d.format)) continue;
      const t0 = performance.now();
      let out = '';
      try {
        out = await run(tool, d.file, d.format);
      } catch (e) {
        out = '';
        console.error(`${tool} failed on ${d.path}: ${(e as Error).message.slice(0, 120)}`);
      }
      ms[tool] += performance.now() - t0;
      toolPages[tool] += d.pages;
      if (dump) writeFileSync(join(dump, `${d.path.replace(/[^\w.-]+/g, '_')}.${tool}.${tool === 'lectern' ? 'md' : 'txt'}`), out);
      const wd = presentWordDistance(d.checks, out);
      wed[tool].sum += wd.sum;
      wed[tool].n += wd.n;
      const kw = ((wedByKind[d.kind] ??= {} as Record<Tool, { sum: number; n: number }>)[tool] ??= { sum: 0, n: 0 });
      kw.sum += wd.sum;
      kw.n += wd.n;
      let ok = 0;
      failed[tool] = [];
      const kt = ((byKindType[d.kind] ??= zero())[tool])!;
      for (const c of d.checks) {
        const pass = passes(c, out);
        tally[tool][c.kind]!.total++;
        kt[c.kind]!.total++;
        if (pass) {
          tally[tool][c.kind]!.passed++;
          kt[c.kind]!.passed++;
          ok++;
        } else failed[tool].push(c);
        if (c.kind === 'cell') {
          for (const group of [`rules:${c.rules}`, ...(c.spanning ? ['spanning'] : [])]) {
            const g = ((cellsBy[group] ??= {})[tool] ??= { passed: 0, total: 0 });
            g.total++;
            if (pass) g.passed++;
          }
        }
        const k = (byKind[d.kind] ??= {} as Record<Tool, Count>);
        k[tool] ??= { passed: 0, total: 0 };
        k[tool].total++;
        if (pass) k[tool].passed++;
      }
      share[tool] = d.checks.length ? ok / d.checks.length : 1;
    }
    const sc = last as { value: number; grade: string; inputs: ScoreInputs } | null;
    perDoc.push({ path: d.path, pages: d.pages, kind: d.kind, group: d.group, split: d.split, share, checks: d.checks.length, score: sc?.value ?? null, grade: sc?.grade ?? null, scoreInputs: sc?.inputs ?? null, failed: Object.fromEntries(Object.entries(failed).map(([t, f]) => [t, f.slice(0, 5)])) });
    console.error(`${perDoc.length}/${docs.length} ${d.kind} ${d.path} lectern ${share.lectern?.toFixed(2)} score ${sc?.value ?? '-'}`);
  }
  const rate = (x: Count) => (x.total ? Math.round((1000 * x.passed) / x.total) / 10 : null);
  const rho = (ds: typeof perDoc) => {
    const scored = ds.filter((d) => d.score !== null && d.share.lectern !== undefined);
    return scored.length >= 3 ? Math.round(spearman(scored.map((d) => d.score!), scored.map((d) => d.share.lectern!)) * 1000) / 1000 : null;
  };
  const sum = (t: Tally, ks: readonly string[]) => ks.reduce((a, k) => ({ passed: a.passed + t[k]!.passed, total: a.total + t[k]!.total }), { passed: 0, total: 0 });
  const result = {
    bench: 'recognition-realset',
    date: new Date().toISOString(),
    machine: { cpus: cpus().length, model: cpus()[0]?.model ?? 'unknown', loadavgBefore: load, loadavgAfter: loadavg(), note: 'shared 2-core machine loaded by other sessions: times are indicative only' },
    split,
    selection: { maxPages, every, set: group, skipScored: opt('skip-scored') ?? null, onlyDocumentsWithCellChecks: args.includes('--only-cells'), kind: opt('kind') ?? null, only: opt('only') ?? null, note: '--every thins devset.json only; kinds.json documents are all scored' },
    base: baseDist ?? null,
    documents: perDoc.length,
    documentsByKind: docsByKind,
    missing,
    changed,
    rebuilt,
    pages,
    checksByType: Object.fromEntries(TOOLS.map((t) => [t, Object.fromEntries(KINDS.map((k) => [k, { ...tally[t][k], percent: rate(tally[t][k]!) }]))])),
    overall: Object.fromEntries(TOOLS.map((t) => [t, { percent: rate(sum(tally[t], KINDS)), percentWithoutHeadings: rate(sum(tally[t], KINDS.filter((k) => k !== 'heading'))) }])),
    // Mean word edit distance on the present checks (presentWordDistance): where spacing errors show.
    presentWordEditDistance: Object.fromEntries(TOOLS.map((t) => [t, wed[t].n ? Math.round((wed[t].sum / wed[t].n) * 10000) / 10000 : null])),
    cellChecksByTable: Object.fromEntries(Object.entries(cellsBy).map(([k, v]) => [k, Object.fromEntries(TOOLS.map((t) => [t, { ...(v[t] ?? { passed: 0, total: 0 }), percent: rate(v[t] ?? { passed: 0, total: 0 }) }]))])),
    byDocumentKind: Object.fromEntries(Object.entries(byKind).map(([k, v]) => [k, Object.fromEntries(TOOLS.map((t) => [t, v[t] ? rate(v[t]) : null]))])),
    // Per kind: documents, checks passed by type per tool (null where a tool does not read the format), word edit distance.
    byKind: Object.fromEntries(Object.entries(byKindType).sort().map(([k, v]) => [k, {
      documents: docsByKind[k],
      checksByType: Object.fromEntries(TOOLS.map((t) => [t, Object.fromEntries(KINDS.map((c) => [c, rate(v[t][c]!)]))])),
      overall: Object.fromEntries(TOOLS.map((t) => [t, rate(sum(v[t], KINDS))])),
      presentWordEditDistance: Object.fromEntries(TOOLS.map((t) => [t, wedByKind[k]?.[t]?.n ? Math.round((wedByKind[k]![t]!.sum / wedByKind[k]![t]!.n) * 10000) / 10000 : null])),
      scoreSpearman: rho(perDoc.filter((d) => d.kind === k)),
    }])),
    // Does the quality score rank documents as the checks do? (share of Lectern's checks passed, per document)
    scoreSpearman: rho(perDoc),
    scoreSpearmanByGroup: { devset: rho(perDoc.filter((d) => d.group === 'devset')), kinds: rho(perDoc.filter((d) => d.group === 'kinds')) },
    // About half the TeX Live documents pass every check (tied ranks): the rank correlation among the documents
    // that fail at least one check says whether the score orders the failures (ADR 0366).
    scoreSpearmanAmongFailing: rho(perDoc.filter((d) => (d.share.lectern ?? 1) < 1)),
    pagesPerSecond: Object.fromEntries(TOOLS.map((t) => [t, ms[t] ? Math.round((toolPages[t] / (ms[t] / 1000)) * 10) / 10 : null])),
    // Seconds per page to the hundredth: OCR runs at 0.1-0.5 pages/s, where pages/s to a tenth says little.
    secondsPerPage: Object.fromEntries(TOOLS.map((t) => [t, ms[t] && toolPages[t] ? Math.round((ms[t] / 1000 / toolPages[t]) * 100) / 100 : null])),
    worstForLectern: [...perDoc].sort((a, b) => a.share.lectern! - b.share.lectern!).slice(0, 8).map((d) => ({ path: d.path, pages: d.pages, share: d.share, failedLectern: d.failed.lectern })),
    perDocument: perDoc.map(({ failed: _f, ...d }) => d),
  };
  const out = opt('out');
  if (out) writeFileSync(out, JSON.stringify(result, null, 1) + '\n');
  console.log(JSON.stringify({ documents: result.documents, pages, checksByType: result.checksByType, cellChecksByTable: result.cellChecksByTable, overall: result.overall, byKind: Object.fromEntries(Object.entries(result.byKind).map(([k, v]) => [k, v.overall])), presentWordEditDistance: result.presentWordEditDistance, scoreSpearman: result.scoreSpearman, scoreSpearmanByGroup: result.scoreSpearmanByGroup, scoreSpearmanAmongFailing: result.scoreSpearmanAmongFailing, pagesPerSecond: result.pagesPerSecond, secondsPerPage: result.secondsPerPage }, null, 1));
}
