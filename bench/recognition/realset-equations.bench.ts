// Equations on the real development set (issue 28, ADR 0321): every displayed equation of each document's
// LaTeX source (bench/recognition/realset/equations.ts) against what the tools make of the PDF. Lectern's
// `$$...$$` displays are compared with the source as normalised LaTeX token sequences; all tools (Lectern,
// `pdftotext`, `mutool draw -F txt`, in the same run) are compared on the equation's symbols in order.
// Rendered back (issue 28): each Lectern display is parsed by KaTeX (renders or not), and each source
// equation that KaTeX renders is compared with the displays as rendered forms (KaTeX's MathML as tokens,
// bench/recognition/realset/render.ts), both over all equations and over those matched as LaTeX.
//   node dist/bench/recognition/realset-equations.bench.js [--root WORK/root] [--split tune|report|all]
//     [--max-pages 60] [--out FILE] [--examples N] [--base OTHER/dist] [--dump FILE.jsonl] [--only PATH-PART,...]
//     [--sty TEXLIVE-ROOT|none]   (default: WORK/root or realset/work/sty/root where it holds texmf-dist)
// --base DIST adds `lectern-base` (another build's converter, e.g. the session's starting build) in the same
// run, base and branch alternated per document; `ab` then gives both builds' LaTeX matches under both
// ground truths: `own` (this build's bench/recognition/realset/equations.ts: since ADR 0367 the document's
// own macro definitions expanded) and `baseTruth` (the base build's equations.js: its source equations,
// token normalisation and matching), so a change in the number splits into what the converter did and what
// the ground truth did.
// --dump FILE writes one JSON line per source equation: its text, whether KaTeX renders it (and the first
// undefined control sequence), and each Lectern build's best display and similarity under both readings.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { LocalProcessRunner } from '../../src/adapters/process/local-process-runner.js';
import { convertDocument } from '../../src/recognition/index.js';
import { repoRoot } from '../../test/helpers/paths.js';
import type { RealDocument } from './realset/build.js';
import { bestLatexMatch, latexTokens, outputDisplays, outputSymbols, sourceEquations, styLibrary, symbolMatch, symbolsOf } from './realset/equations.js';
import { renderedTokens, sourceDisplay, texError } from './realset/render.js';

const args = process.argv.slice(2);
const opt = (name: string): string | undefined => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : undefined);
const here = join(repoRoot, 'bench', 'recognition', 'realset');
const root = opt('root') ?? join(here, 'work', 'root');
const split = opt('split') ?? 'report';
const maxPages = Number(opt('max-pages') ?? 60);
const examplesWanted = Number(opt('examples') ?? 12);
const baseDist = opt('base');
const dumpFile = opt('dump');
// The packages' .sty files (ADR 0367 amendment c): TeX Live's runtime packages unpacked (sty-packages.txt,
// fetched with fetch.sh); `--sty none` scores without them, as before.
const styRoot = opt('sty') ?? [root, join(here, 'work', 'sty', 'root')].find((r) => existsSync(join(r, 'usr', 'share', 'texlive', 'texmf-dist', 'tex', 'latex'))) ?? 'none';
const packageLib = styRoot === 'none' ? null : styLibrary(styRoot);
const TOOLS = ['lectern', 'pdftotext', 'mutool'] as const;
type RawTool = (typeof TOOLS)[number];
type Tool = RawTool | 'lectern-base';
type Truth = { sourceEquations: typeof sourceEquations; latexTokens: typeof latexTokens; bestLatexMatch: typeof bestLatexMatch };
const baseTruth = baseDist ? ((await import(pathToFileURL(join(baseDist, 'bench', 'recognition', 'realset', 'equations.js')).href)) as Truth) : null;
const baseConvert = baseDist ? ((await import(pathToFileURL(join(baseDist, 'src', 'recognition', 'index.js')).href)) as { convertDocument: typeof convertDocument }).convertDocument : null;
const MATCH = 0.8;
const MAX_TOKENS = 300;
const runner = new LocalProcessRunner();
const kindOf = (d: RealDocument): string => `${d.package.replace(/^texlive-/, '').replace(/-doc$/, '')}/${d.kind}`;

async function run(tool: Tool, pdf: string): Promise<string> {
  if (tool === 'lectern') return (await convertDocument(new Uint8Array(readFileSync(pdf)), { runner })).markdown;
  if (tool === 'lectern-base') return (await baseConvert!(new Uint8Array(readFileSync(pdf)), { runner })).markdown;
  if (tool === 'pdftotext') return execFileSync('pdftotext', ['-q', pdf, '-'], { maxBuffer: 256 << 20 }).toString('utf8');
  return execFileSync('mutool', ['draw', '-q', '-F', 'txt', '-o', '-', pdf], { maxBuffer: 256 << 20, stdio: ['ignore', 'pipe', 'ignore'] }).toString('utf8');
}

if (process.argv[1]?.endsWith('realset-equations.bench.js')) {
  const set = JSON.parse(readFileSync(join(here, 'devset.json'), 'utf8')) as { documents: RealDocument[] };
  const load = loadavg();
  const cpu0 = process.cpuUsage();
  const only = opt('only')?.split(',').filter(Boolean);
  const docs = set.documents.filter((d) => (split === 'all' || d.split === split) && d.pages <= maxPages && (!only || only.some((o) => d.path.includes(o))));
  type Count = { equations: number; symbolsMatched: number; symbolSimilaritySum: number };
  const tally = Object.fromEntries(TOOLS.map((t) => [t, { equations: 0, symbolsMatched: 0, symbolSimilaritySum: 0 }])) as Record<RawTool, Count>;
  const latex = { equations: 0, matched: 0, exact: 0, similaritySum: 0, displays: 0, displaysWithUnmapped: 0 };
  // Rendered back: displays KaTeX renders; source equations it renders (sources use their own macros) and
  // how close their rendered forms are to the displays'.
  const rendered = { displaysRendered: 0, sourceEquations: 0, sourceRendered: 0, matched: 0, similaritySum: 0, latexMatched: 0, latexMatchedSourceRendered: 0, latexMatchedRenderedMatched: 0, latexMatchedSimilaritySum: 0 };
  const parseErrors: Record<string, number> = {};
  const parseErrorExamples: { path: string; display: string; error: string }[] = [];
  const byKind: Record<string, { documents: number; equations: number; latexMatched: number; symbols: Record<RawTool, number> }> = {};
  const perDoc: { path: string; split: string; pages: number; equations: number; displays: number; latexMatched: number; symbolsMatched: Record<RawTool, number> }[] = [];
  const examples: { path: string; source: string; bestDisplay: string; similarity: number }[] = [];
  // A/B (--base): LaTeX matches per build and per reading of the ground truth; symbols per build.
  const LECTERNS = baseDist ? (['lectern', 'lectern-base'] as const) : (['lectern'] as const);
  type AbCount = { equations: number; matched: number; exact: number; renderedSource: number; renderedMatched: number; symbolsMatched: number; documentsBetter: number; documentsWorse: number };
  const abZero = (): AbCount => ({ equations: 0, matched: 0, exact: 0, renderedSource: 0, renderedMatched: 0, symbolsMatched: 0, documentsBetter: 0, documentsWorse: 0 });
  const ab: Record<string, Record<'own' | 'baseTruth', AbCount>> = Object.fromEntries(LECTERNS.map((t) => [t, { own: abZero(), baseTruth: abZero() }]));
  const abDocs: { path: string; own: Record<string, number>; baseTruth: Record<string, number> }[] = [];
  if (dumpFile) writeFileSync(dumpFile, '');
  let skipped = 0;
  let tooLong = 0;
  let lecternCpuMs = 0;
  // The JSON is rewritten after every document: a run cut short on a loaded machine still leaves its figures.
  const summary = (finished: boolean) => {
    const pct = (a: number, b: number) => (b ? Math.round((1000 * a) / b) / 10 : null);
    const cpu = process.cpuUsage(cpu0);
    return {
      bench: 'recognition-realset-equations',
      finished,
      date: new Date().toISOString(),
      machine: { cpus: cpus().length, model: cpus()[0]?.model ?? 'unknown', loadavgBefore: load, loadavgAfter: loadavg(), note: 'shared 2-core machine loaded by other sessions; counts do not depend on load, times are CPU time of this process (tools in child processes not included)' },
      split,
      packages: packageLib ? { sty: styRoot, rule: 'own ground truth: the macros of the packages the document loads expanded from their .sty files (ADR 0367 amendment c)' } : null,
      selection: { maxPages, documentsWithEquations: perDoc.length, skipped, equationsOverMaxTokensLeftOut: tooLong, maxTokens: MAX_TOKENS },
      rule: 'source displays (equation/align/gather/multline/eqnarray/displaymath, \\[..\\], $$..$$) vs output; LaTeX matched: normalised token similarity >= 0.8 with a $$ display (or 2-4 consecutive ones); symbols matched: the equation symbols in order in the text, similarity >= 0.8',
      latex: {
        equations: latex.equations,
        matched: latex.matched,
        matchedPercent: pct(latex.matched, latex.equations),
        exact: latex.exact,
        exactPercent: pct(latex.exact, latex.equations),
        meanSimilarity: latex.equations ? Math.round((latex.similaritySum / latex.equations) * 1000) / 1000 : null,
        displays: latex.displays,
        displaysWithUnmappedGlyphs: latex.displaysWithUnmapped,
      },
      symbolsInOrder: Object.fromEntries(TOOLS.map((t) => [t, { equations: tally[t].equations, matched: tally[t].symbolsMatched, percent: pct(tally[t].symbolsMatched, tally[t].equations), meanSimilarity: tally[t].equations ? Math.round((tally[t].symbolSimilaritySum / tally[t].equations) * 1000) / 1000 : null }])),
      renderedBack: {
        renderer: 'KaTeX 0.19.1, renderToString(display, { displayMode: true, throwOnError: true, strict: "ignore" })',
        rule: 'renders: KaTeX parses the display; rendered comparison: KaTeX MathML of source and display as token sequences (mrow, spaces, attributes, the source annotation and \\tag left out), best display or run of 2-4 displays, similarity >= 0.8; counted over source equations KaTeX renders',
        displays: latex.displays,
        displaysRendered: rendered.displaysRendered,
        rendersPercent: pct(rendered.displaysRendered, latex.displays),
        sourceEquations: rendered.sourceEquations,
        sourceRendered: rendered.sourceRendered,
        renderedMatched: rendered.matched,
        renderedMatchedPercent: pct(rendered.matched, rendered.sourceRendered),
        renderedMeanSimilarity: rendered.sourceRendered ? Math.round((rendered.similaritySum / rendered.sourceRendered) * 1000) / 1000 : null,
        latexMatched: rendered.latexMatched,
        latexMatchedSourceRendered: rendered.latexMatchedSourceRendered,
        latexMatchedAlsoRenderedMatched: rendered.latexMatchedRenderedMatched,
        latexMatchedAlsoRenderedPercent: pct(rendered.latexMatchedRenderedMatched, rendered.latexMatchedSourceRendered),
        latexMatchedRenderedMeanSimilarity: rendered.latexMatchedSourceRendered ? Math.round((rendered.latexMatchedSimilaritySum / rendered.latexMatchedSourceRendered) * 1000) / 1000 : null,
        parseErrors: Object.fromEntries(Object.entries(parseErrors).sort((a, b) => b[1] - a[1])),
        parseErrorExamples,
      },
      byDocumentKind: Object.fromEntries(Object.entries(byKind).map(([n, v]) => [n, { documents: v.documents, equations: v.equations, latexMatchedPercent: pct(v.latexMatched, v.equations), symbolsPercent: Object.fromEntries(TOOLS.map((t) => [t, pct(v.symbols[t], v.equations)])) }])),
      cpu: { benchProcessMs: Math.round((cpu.user + cpu.system) / 1000), lecternInProcessMs: Math.round(lecternCpuMs) },
      ab: baseDist ? { base: baseDist, order: 'lectern and lectern-base alternated per document (even documents lectern first)', truths: { own: 'this build\'s ground truth (ADR 0367: the document\'s own \\newcommand/\\def/\\DeclareMathOperator/\\DeclarePairedDelimiter/\\let definitions expanded; \\stackrel read as \\overset; \\mathclap and size switches dropped)', baseTruth: 'the base build\'s ground truth (its equations.js)' }, counts: ab, documentsChanged: abDocs.filter((x) => x.own['lectern'] !== x.own['lectern-base'] || x.baseTruth['lectern'] !== x.baseTruth['lectern-base'] || x.own['lectern'] !== x.baseTruth['lectern']) } : null,
      perDocument: perDoc,
      unmatchedExamples: examples,
    };
  };
  for (const d of docs) {
    const pdf = join(root, d.path);
    const texPath = join(root, d.source);
    if (!existsSync(pdf) || !existsSync(texPath) || createHash('sha256').update(readFileSync(pdf)).digest('hex') !== d.sha256) {
      skipped++;
      continue;
    }
    const raw = readFileSync(texPath);
    const texSource = (texPath.endsWith('.gz') ? gunzipSync(raw) : raw).toString('utf8');
    let eqs = sourceEquations(texSource, packageLib)
      .map((e) => ({ tex: e, tokens: latexTokens(e) }))
      .filter((e) => e.tokens.length > 0);
    const eqsBase = baseTruth
      ? baseTruth.sourceEquations(texSource)
          .map((e) => ({ tex: e, tokens: baseTruth.latexTokens(e) }))
          .filter((e) => e.tokens.length > 0 && e.tokens.length <= MAX_TOKENS)
      : [];
    // Equations of over 300 tokens (a page-long expansion of a package's macros) are left out: aligning
    // them costs minutes and says little; counted apart.
    tooLong += eqs.filter((e) => e.tokens.length > MAX_TOKENS).length;
    eqs = eqs.filter((e) => e.tokens.length <= MAX_TOKENS);
    if (!eqs.length) continue;
    const k = (byKind[kindOf(d)] ??= { documents: 0, equations: 0, latexMatched: 0, symbols: { lectern: 0, pdftotext: 0, mutool: 0 } });
    k.documents++;
    k.equations += eqs.length;
    const row = { path: d.path, split: d.split, pages: d.pages, equations: eqs.length, displays: 0, latexMatched: 0, symbolsMatched: { lectern: 0, pdftotext: 0, mutool: 0 } as Record<RawTool, number> };
    const order: Tool[] = baseDist ? (perDoc.length % 2 === 0 ? ['lectern', 'lectern-base', 'pdftotext', 'mutool'] : ['lectern-base', 'lectern', 'pdftotext', 'mutool']) : [...TOOLS];
    const docAb = { path: d.path, own: {} as Record<string, number>, baseTruth: {} as Record<string, number> };
    const dumpRows = eqs.map((e) => {
      const err = texError(sourceDisplay(e.tex));
      return { path: d.path, source: e.tex.replace(/\s+/g, ' ').slice(0, 600), tokens: e.tokens.length, sourceRenders: err === null, undefinedMacro: err ? /Undefined control sequence: (\\[A-Za-z@]+)/.exec(err)?.[1] ?? err.slice(0, 80) : null, best: {} as Record<string, { similarity: number; display: string }> };
    });
    for (const tool of order) {
      let out = '';
      const c0 = process.cpuUsage();
      try {
        out = await run(tool, pdf);
      } catch (e) {
        console.error(`${tool} failed on ${d.path}: ${(e as Error).message.slice(0, 120)}`);
      }
      if (tool === 'lectern' || tool === 'lectern-base') {
        const shown = outputDisplays(out);
        const toks = shown.map((s) => latexTokens(s));
        const shownRendered = shown.map((s) => (texError(s) === null ? renderedTokens(s) ?? [] : []));
        for (const [reading, list] of [['own', eqs], ['baseTruth', eqsBase]] as const) {
          const c = ab[tool]?.[reading];
          // Without --base there is no base ground truth to score under (the run crashed on `baseTruth!`).
          if (!c || (reading === 'baseTruth' && !baseTruth)) continue;
          const match = reading === 'own' ? bestLatexMatch : baseTruth!.bestLatexMatch;
          const dispToks = reading === 'own' ? toks : shown.map((s) => baseTruth!.latexTokens(s));
          let n = 0;
          for (const [i, e] of list.entries()) {
            const sim = match(e.tokens, dispToks);
            c.equations++;
            if (sim >= MATCH) {
              c.matched++;
              n++;
            }
            if (sim === 1) c.exact++;
            const src = renderedTokens(sourceDisplay(e.tex));
            if (src) {
              c.renderedSource++;
              if (bestLatexMatch(src, shownRendered) >= MATCH) c.renderedMatched++;
            }
            if (reading === 'own' && dumpFile) {
              const best = shown.map((s, j) => ({ s, v: bestLatexMatch(e.tokens, [toks[j]!]) })).sort((a, b) => b.v - a.v)[0];
              dumpRows[i]!.best[tool] = { similarity: Math.round(sim * 1000) / 1000, display: (best?.s ?? '').slice(0, 400) };
            }
          }
          if (reading === 'own') {
            const text = outputSymbols(out);
            c.symbolsMatched += list.filter((e) => {
              const sym = symbolsOf(e.tokens);
              return sym && symbolMatch(sym, text) >= MATCH;
            }).length;
          }
          docAb[reading][tool] = n;
        }
      }
      if (tool === 'lectern-base') continue;
      if (tool === 'lectern') {
        const c = process.cpuUsage(c0);
        lecternCpuMs += (c.user + c.system) / 1000;
        const shown = outputDisplays(out);
        row.displays = shown.length;
        latex.displays += shown.length;
        latex.displaysWithUnmapped += shown.filter((s) => /[\uFFFD\u25A1]/.test(s)).length;
        const toks = shown.map((s) => latexTokens(s));
        // Rendered back: each display parsed by KaTeX; its rendered form ([] when it does not parse).
        const shownRendered = shown.map((s) => {
          const err = texError(s);
          if (err === null) {
            rendered.displaysRendered++;
            return renderedTokens(s) ?? [];
          }
          const kind = err.replace(/^KaTeX parse error: /, '').replace(/ at position \d+[\s\S]*$/, '').replace(/'[^']*'|"[^"]*"|\\[A-Za-z]+/g, (m) => (m.startsWith('\\') ? m : "'…'")).slice(0, 80);
          parseErrors[kind] = (parseErrors[kind] ?? 0) + 1;
          if (parseErrorExamples.length < examplesWanted) parseErrorExamples.push({ path: d.path, display: s.slice(0, 200), error: err.slice(0, 160) });
          return [];
        });
        for (const e of eqs) {
          const sim = bestLatexMatch(e.tokens, toks);
          rendered.sourceEquations++;
          const src = renderedTokens(sourceDisplay(e.tex));
          if (sim >= MATCH) rendered.latexMatched++;
          if (src) {
            rendered.sourceRendered++;
            const rsim = bestLatexMatch(src, shownRendered);
            rendered.similaritySum += rsim;
            if (rsim >= MATCH) rendered.matched++;
            if (sim >= MATCH) {
              rendered.latexMatchedSourceRendered++;
              rendered.latexMatchedSimilaritySum += rsim;
              if (rsim >= MATCH) rendered.latexMatchedRenderedMatched++;
            }
          }
          latex.equations++;
          latex.similaritySum += sim;
          if (sim >= MATCH) {
            latex.matched++;
            row.latexMatched++;
            k.latexMatched++;
          }
          if (sim === 1) latex.exact++;
          if (sim < MATCH && examples.length < examplesWanted && e.tokens.length <= 40) {
            const best = shown.map((s, i) => ({ s, v: bestLatexMatch(e.tokens, [toks[i]!]) })).sort((a, b) => b.v - a.v)[0];
            examples.push({ path: d.path, source: e.tex.replace(/\s+/g, ' ').slice(0, 200), bestDisplay: (best?.s ?? '').slice(0, 200), similarity: Math.round(sim * 100) / 100 });
          }
        }
      }
      const text = outputSymbols(out);
      for (const e of eqs) {
        const sym = symbolsOf(e.tokens);
        if (!sym) continue;
        const v = symbolMatch(sym, text);
        tally[tool].equations++;
        tally[tool].symbolSimilaritySum += v;
        if (v >= MATCH) {
          tally[tool].symbolsMatched++;
          row.symbolsMatched[tool]++;
          k.symbols[tool]++;
        }
      }
    }
    perDoc.push(row);
    if (baseDist) {
      abDocs.push(docAb);
      for (const reading of ['own', 'baseTruth'] as const) {
        const a = docAb[reading]['lectern']!;
        const b = docAb[reading]['lectern-base']!;
        if (a > b) ab['lectern']![reading].documentsBetter++;
        if (a < b) ab['lectern']![reading].documentsWorse++;
      }
    }
    if (dumpFile) writeFileSync(dumpFile, dumpRows.map((r) => JSON.stringify(r)).join('\n') + (dumpRows.length ? '\n' : ''), { flag: 'a' });
    if (opt('out')) writeFileSync(opt('out')!, JSON.stringify(summary(false), null, 1) + '\n');
    console.error(`${d.path}: ${eqs.length} equations, ${row.displays} displays, LaTeX matched ${row.latexMatched}, symbols ${TOOLS.map((t) => row.symbolsMatched[t]).join('/')}`);
  }
  const result = summary(true);
  const out = opt('out');
  if (out) writeFileSync(out, JSON.stringify(result, null, 1) + '\n');
  console.log(JSON.stringify({ documents: perDoc.length, ab: result.ab?.counts, latex: result.latex, renderedBack: { ...result.renderedBack, parseErrorExamples: undefined }, symbolsInOrder: result.symbolsInOrder, byDocumentKind: result.byDocumentKind }, null, 1));
}
