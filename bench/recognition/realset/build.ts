// Builds the list of the real development set (issue 28): PDFs from Debian packages whose LaTeX source sits
// beside them (`x.pdf` and `x.tex` or `x.tex.gz`), with olmOCR-bench style checks written from the source,
// never from a converter's output. Writes bench/recognition/realset/devset.json (package, version, path,
// sha256, pages, split, checks). Run after fetch.sh:
//   node dist/bench/recognition/realset/build.js [--root WORK/root] [--per-dir 3] [--max-pages 150]
// Checks from the source:
//   present  a run of 6-12 plain words of body text outside any macro argument, environment of code, math
//            or tables (the text TeX sets verbatim, apart from hyphenation and ligatures); accent and letter
//            macros (`est\'a`, `\ss`, German `f"ur`) read as the letters they typeset (tex-letters.ts), and a run
//            touching one that cannot be decoded is dropped, never cut into a fragment;
//   order    two such runs, the one earlier in the source first;
//   heading  the title of \section / \subsection / \chapter (plain text only) as a Markdown heading;
//   cell     olmOCR-bench table checks from tabular / tabular* / tabularx / tabulary / longtable sources, ruled
//            or not, with \multicolumn spanning headers: a cell's text and its left or right neighbour, the
//            cell above or below and the heading of its column (tables.ts), up to four tables a document.
// A run is kept only when all its words occur in the PDF's text as `pdftotext` or `mutool` read it (as a bag
// of words, line-end hyphens joined): text under \iffalse, in a comment environment or in an unused branch is
// not in the PDF. The bag says nothing about order, spacing or line joins, which the checks test.
// Split: the first byte of sha256(path) even is `tune`, odd is `report`; tune on one, report on the other.
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { repoRoot } from '../../../test/helpers/paths.js';
import { type CellCheck, sourceTables, documentTableChecks } from './tables.js';
import { decodeTexLetters, loadsGerman } from './tex-letters.js';

export type RealCheck =
  | { readonly kind: 'present'; readonly text: string }
  | { readonly kind: 'order'; readonly before: string; readonly after: string }
  | { readonly kind: 'heading'; readonly text: string }
  | CellCheck;

export interface RealDocument {
  readonly package: string;
  readonly version: string;
  /** Path inside the package (absolute, as installed). */
  readonly path: string;
  readonly sha256: string;
  readonly bytes: number;
  readonly pages: number;
  readonly kind: 'latex-doc' | 'latex-example' | 'slides';
  readonly split: 'tune' | 'report';
  readonly source: string;
  readonly checks: readonly RealCheck[];
}

const here = join(repoRoot, 'bench', 'recognition', 'realset');

/** Environments whose content is not running text. */
const SKIP_ENVS = /^(?:verbatim\*?|lstlisting|minted|alltt|comment|equation\*?|align\*?|gather\*?|multline\*?|eqnarray\*?|displaymath|math|tabular[x*]?|longtable|tabu|array|tikzpicture|picture|pspicture|figure\*?|table\*?|thebibliography|filecontents\*?|macrocode|macro|environment|example|sourcecode|code|LTXexample|tcblisting|frame(?=\})|exercise|forest|tree|xy)$/;

/** Strips TeX comments (an unescaped % to the end of the line). */
const stripComments = (s: string): string => s.replace(/(^|[^\\])%.*$/gm, '$1');

/** Top-level runs of plain words in a paragraph of TeX: text outside braces, macros and math. */
function plainRuns(par: string): string[] {
  const runs: string[] = [];
  let cur = '';
  let depth = 0;
  const flush = () => {
    if (cur.trim()) runs.push(cur);
    cur = '';
  };
  for (let i = 0; i < par.length; i++) {
    const c = par[i]!;
    if (c === '{') {
      depth++;
      flush();
    } else if (c === '}') {
      depth = Math.max(0, depth - 1);
      flush();
    } else if (depth > 0) continue;
    else if (c === '\\') {
      flush();
      // Skip the control word and a following optional argument.
      i++;
      while (i < par.length && /[A-Za-z@]/.test(par[i]!)) i++;
      if (par[i] === '[') while (i < par.length && par[i] !== ']') i++;
      else i--;
    } else if (/[$&~^_#`'"\-\[\]<>|=+*/0-9@()!?:;]/.test(c)) flush();
    else cur += c;
  }
  flush();
  return runs;
}

/** Sentence-internal word runs of 6..12 words (letters, commas and full stops inside). */
function wordRuns(par: string): string[] {
  const out: string[] = [];
  for (const run of plainRuns(par)) {
    // Cut at every full stop and comma: at sentence ends, and inside names such as "dvips.sty".
    for (const piece of run.split(/[.,]/)) {
      const words = piece.split(/\s+/).filter(Boolean);
      if (words.length < 6 || !words.every((w) => /^\p{L}+$/u.test(w))) continue;
      const take = words.slice(0, Math.min(12, words.length));
      out.push(take.join(' '));
    }
  }
  return out;
}

/** Body of the document: between \begin{document} and \end{document}, skipped environments removed. */
function bodyOf(tex: string): string {
  // Accent and letter macros as the letters they typeset (tex-letters.ts): a run is not cut at `est\'a`.
  const src = decodeTexLetters(stripComments(tex), { germanShorthands: loadsGerman(stripComments(tex)) });
  const start = src.indexOf('\\begin{document}');
  const end = src.lastIndexOf('\\end{document}');
  let body = start >= 0 ? src.slice(start + 16, end > start ? end : undefined) : '';
  // Remove skipped environments (outermost first; nested ones go with their parent).
  body = body.replace(/\\begin\{([^}]+)\}[\s\S]*?\\end\{\1\}/g, (m, name: string) => (SKIP_ENVS.test(name) ? '\n\n' : m));
  // \iffalse ... \fi is never set.
  body = body.replace(/\\iffalse[\s\S]*?\\fi\b/g, '\n\n');
  // Display math.
  body = body.replace(/\\\[[\s\S]*?\\\]/g, ' $ ').replace(/\$\$[\s\S]*?\$\$/g, ' $ ');
  return body;
}

const PLAIN_TITLE = /^[\p{L}][\p{L}\p{N} ,.:'()-]{2,80}$/u;

/** Checks from one LaTeX source; `bag` holds the words the PDF's own text has. */
export function checksFromTex(tex: string, bag: ReadonlySet<string>): RealCheck[] {
  const body = bodyOf(tex);
  const checks: RealCheck[] = [];
  // Headings.
  const headings: string[] = [];
  for (const m of body.matchAll(/\\(?:chapter|section|subsection)\*?\s*(?:\[[^\]]*\])?\s*\{([^{}]+)\}/g)) {
    const t = m[1]!.replace(/\s+/g, ' ').trim();
    if (PLAIN_TITLE.test(t) && t.split(' ').every((w) => bag.has(w.toLowerCase().replace(/[^\p{L}\p{N}]/gu, '')) || !/\p{L}/u.test(w))) headings.push(t);
  }
  for (const h of headings.slice(0, 8)) checks.push({ kind: 'heading', text: h });
  // Prose runs.
  const runs: string[] = [];
  for (const par of body.split(/\n\s*\n/)) {
    for (const r of wordRuns(par.replace(/\s+/g, ' '))) {
      if (r.split(' ').every((w) => bag.has(w.toLowerCase())) && !runs.includes(r)) runs.push(r);
    }
  }
  // Spread the picks over the document.
  const pick = (n: number): string[] => (runs.length <= n ? runs : Array.from({ length: n }, (_, i) => runs[Math.floor((i * runs.length) / n)]!));
  const present = pick(12);
  for (const r of present) checks.push({ kind: 'present', text: r });
  for (let i = 1; i < present.length && i <= 8; i++) checks.push({ kind: 'order', before: present[i - 1]!, after: present[i]! });
  // Tables: cell checks with their neighbours and column headings (tables.ts); a cell's words must be in
  // the PDF's text like the prose runs'.
  const inPdf = (t: string): boolean => t.normalize('NFKC').toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean).every((w) => bag.has(w));
  checks.push(...documentTableChecks(sourceTables(tex), inPdf));
  return checks;
}

/** Lower-case words of a text, line-end hyphens joined. */
export function wordBag(text: string): Set<string> {
  const joined = text.normalize('NFKC').replace(/(\p{L})-\s*\n\s*(\p{L})/gu, '$1$2');
  return new Set(joined.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean));
}

function pdfText(pdf: string): string {
  let t = '';
  try {
    t += execFileSync('pdftotext', ['-q', pdf, '-'], { maxBuffer: 256 << 20 }).toString('utf8');
  } catch {
    /* unreadable for pdftotext */
  }
  return t;
}

function pageCount(pdf: string): number {
  try {
    const info = execFileSync('pdfinfo', [pdf]).toString('utf8');
    return Number(/^Pages:\s+(\d+)/m.exec(info)?.[1] ?? 0);
  } catch {
    return 0;
  }
}

/** Which package a path belongs to, from the unpacked .deb files' lists. */
export function packageIndex(debs: string): Map<string, { package: string; version: string }> {
  const out = new Map<string, { package: string; version: string }>();
  for (const f of readdirSync(debs).filter((n) => n.endsWith('.deb'))) {
    const deb = join(debs, f);
    const [pkg, ver] = execFileSync('dpkg-deb', ['-f', deb, 'Package', 'Version']).toString('utf8').trim().split('\n').map((l) => l.split(': ')[1]!);
    for (const line of execFileSync('dpkg-deb', ['-c', deb], { maxBuffer: 64 << 20 }).toString('utf8').split('\n')) {
      const path = line.split(/\s+/).slice(5).join(' ').replace(/^\./, '');
      if (path.endsWith('.pdf')) out.set(path, { package: pkg!, version: ver! });
    }
  }
  return out;
}

/** The list as JSON with one document per line (compact, and a rebuild diffs line by line). */
export function serialize(built: string, docs: readonly RealDocument[]): string {
  const head = JSON.stringify({ built, rule: 'checks from the LaTeX source beside each PDF (build.ts); split by sha256(path)' }).slice(0, -1);
  return `${head},"documents":[\n${docs.map((d) => JSON.stringify(d)).join(',\n')}\n]}\n`;
}

function* walk(dir: string): Generator<string> {
  for (const n of readdirSync(dir)) {
    const p = join(dir, n);
    const s = statSync(p);
    if (s.isDirectory()) yield* walk(p);
    else if (n.endsWith('.pdf')) yield p;
  }
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop()!)) {
  const args = process.argv.slice(2);
  const opt = (n: string, d: string) => (args.includes(`--${n}`) ? args[args.indexOf(`--${n}`) + 1]! : d);
  const root = opt('root', join(here, 'work', 'root'));
  const debs = opt('debs', join(dirname(root), 'debs'));
  const perDir = Number(opt('per-dir', '3'));
  const maxPages = Number(opt('max-pages', '150'));
  const index = packageIndex(debs);
  const docs: RealDocument[] = [];
  const perDirCount = new Map<string, number>();
  for (const pdf of [...walk(root)].sort()) {
    const base = pdf.slice(0, -4);
    const texPath = existsSync(`${base}.tex`) ? `${base}.tex` : existsSync(`${base}.tex.gz`) ? `${base}.tex.gz` : null;
    if (!texPath) continue;
    const dir = dirname(pdf);
    if ((perDirCount.get(dir) ?? 0) >= perDir) continue;
    const path = `/${relative(root, pdf)}`;
    const pkg = index.get(path);
    if (!pkg) continue;
    const pages = pageCount(pdf);
    if (pages === 0 || pages > maxPages) continue;
    const raw = readFileSync(texPath);
    const tex = (texPath.endsWith('.gz') ? gunzipSync(raw) : raw).toString('utf8');
    let bagText = pdfText(pdf);
    try {
      bagText += '\n' + execFileSync('mutool', ['draw', '-q', '-F', 'txt', '-o', '-', pdf], { maxBuffer: 256 << 20, stdio: ['ignore', 'pipe', 'ignore'] }).toString('utf8');
    } catch {
      /* mutool could not read it */
    }
    const checks = checksFromTex(tex, wordBag(bagText));
    if (checks.filter((c) => c.kind === 'present').length < 3) continue;
    perDirCount.set(dir, (perDirCount.get(dir) ?? 0) + 1);
    const bytes = readFileSync(pdf);
    const kind = /\\documentclass(?:\[[^\]]*\])?\{beamer\}/.test(tex) ? 'slides' : /examples?\//.test(path) ? 'latex-example' : 'latex-doc';
    docs.push({
      package: pkg.package,
      version: pkg.version,
      path,
      sha256: createHash('sha256').update(bytes).digest('hex'),
      bytes: bytes.length,
      pages,
      kind,
      split: createHash('sha256').update(path).digest()[0]! % 2 === 0 ? 'tune' : 'report',
      source: `/${relative(root, texPath)}`,
      checks,
    });
  }
  const out = join(here, 'devset.json');
  writeFileSync(out, serialize(new Date().toISOString().slice(0, 10), docs));
  const by = (s: string) => docs.filter((d) => d.split === s);
  console.log(`${docs.length} documents (${by('tune').length} tune, ${by('report').length} report), ${docs.reduce((n, d) => n + d.pages, 0)} pages, ${docs.reduce((n, d) => n + d.checks.length, 0)} checks -> ${out}`);
}
