// Assembles the quality report from what the conversion found.
import { PIPELINE_VERSION } from '../checkpoint.js';
import type { ConversionContext } from '../conversion-context.js';
import type { DocumentFormat } from '../format-detection.js';
import type { MarkdownUnit, PageExtraction } from '../layout-model.js';
import type { StructureCounts } from '../structure/document-blocks.js';
import type { DocumentMetadata, QualityReport, QualityWarning, WarningCode } from './quality-report.js';
import { markdownFaults } from './markdown-faults.js';
import { scoreReport } from './score.js';
import { sharingMarkdown } from './shared-markdown.js';
import { plainText, textStatistics } from './text-statistics.js';

/** Facts about the input gathered by a format backend. */
export interface InputFacts {
  readonly sha256: string;
  readonly format: DocumentFormat;
  readonly bytes: number;
  readonly pageCount: number;
  readonly encrypted: boolean;
  readonly repaired: boolean;
  readonly producer: string | null;
  readonly metadata: DocumentMetadata;
}

const MESSAGES: Partial<Record<WarningCode, string>> = {
  IMAGE_ONLY_PAGES: 'pages have no text layer, only images; they were sent to OCR',
  GARBLED_TEXT_LAYER: 'the text layer maps glyphs to the wrong characters on these pages; OCR was used instead',
  ROTATED_PAGES_CORRECTED: 'pages were turned upright before OCR',
  EMPTY_PAGES: 'pages without any text',
  PAGES_FAILED: 'pages could not be converted',
  PAGE_TIMEOUT: 'pages hit the per-page time limit',
  PAGE_TOO_LARGE: 'pages are too large to render for OCR within the pixel limit',
  OCR_UNAVAILABLE: 'pages needed OCR, which is not available (tesseract missing or OCR disabled)',
  DJVU_NO_TEXT_LAYER: 'DJVU pages without a hidden text layer were recognised with OCR',
  MISSING_SPINE_ITEM: 'spine items point to files missing from the archive',
} as Partial<Record<WarningCode, string>>;

/** What the layout passes measured (PDF and DJVU; EPUB markup has no page layout). */
export interface LayoutFacts {
  readonly removedLines: number;
  readonly layoutComplexity: number;
  readonly rowSwitches: number;
  readonly marginLinesKept: number;
}

const NO_LAYOUT: LayoutFacts = { removedLines: 0, layoutComplexity: 0, rowSwitches: 0, marginLinesKept: 0 };

/** Images over this share of a page's area with text under IMAGE_PAGE_MAX_CHARS: the text is likely in the images. */
const IMAGE_PAGE_AREA = 0.5;
const IMAGE_PAGE_MAX_CHARS = 200;

/** Text-layer pages dominated by images and nearly without text of their own. */
function imageDominatedPages(units: readonly (PageExtraction | MarkdownUnit)[]): number {
  let n = 0;
  for (const u of units) {
    if (u.kind !== 'text-layer' || u.images.length === 0) continue;
    const area = u.images.reduce((s, b) => s + Math.max(0, b.x1 - b.x0) * Math.max(0, b.y1 - b.y0), 0);
    if (area < IMAGE_PAGE_AREA * u.width * u.height) continue;
    let chars = 0;
    for (const l of u.lines) chars += l.text.length;
    if (chars < IMAGE_PAGE_MAX_CHARS) n++;
  }
  return n;
}

/** Body text this much larger (or more) makes a short line look like a heading. */
const HEADING_SIZE_RATIO = 1.15;
const HEADING_MAX_WORDS = 12;

/** Captions, contact lines, versions and dates, and table-of-contents entries ending in a page number look like headings and are not. */
const NOT_A_HEADING = /^(table|figure|fig\.|listing|algorithm)\s*\d|@|https?:|\bversion\b|(\s|\.)\d+$|^\d+$/i;

const ALNUM_RE = /^[\p{L}\p{N}]$/u;
/** Non-ASCII code points seen, with whether each is a letter or digit. */
const alnumCodes = new Map<number, boolean>();
/**
 * Letters and digits of `s` (code points matching `[\p{L}\p{N}]`), counted without building the array of
 * matches (ADR 0357): ASCII by code, other code points by the pattern, once each.
 */
function alnum(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) {
      const l = c | 0x20;
      if ((c >= 0x30 && c <= 0x39) || (l >= 0x61 && l <= 0x7a)) n++;
      continue;
    }
    const cp = s.codePointAt(i)!;
    if (cp > 0xffff) i++;
    let hit = alnumCodes.get(cp);
    if (hit === undefined) {
      hit = ALNUM_RE.test(String.fromCodePoint(cp));
      if (alnumCodes.size >= 65536) alnumCodes.clear();
      alnumCodes.set(cp, hit);
    }
    if (hit) n++;
  }
  return n;
}
const norm = (s: string): string => s.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');

/**
 * What the converter can see of its own misses on text-layer pages (ADR 0352): heading-like lines (larger than
 * the body, or a whole bold line standing alone; captions, contact and version lines, contents entries and the
 * first page's title block left out) whose text is in no Markdown heading, and the share of the
 * letters and digits MuPDF read on those pages that the Markdown lacks. `plain`: the Markdown's
 * {@link plainText}, when the caller has it.
 */
export function textLayerMisses(units: readonly (PageExtraction | MarkdownUnit)[], markdown: string, plain?: string): { missedHeadingRatio: number; droppedTextRatio: number } {
  const pages = units.filter((u): u is PageExtraction => u.kind === 'text-layer');
  if (pages.length === 0) return { missedHeadingRatio: 0, droppedTextRatio: 0 };
  // The body size: the size most characters are set in.
  const bySize = new Map<number, number>();
  let source = 0;
  for (const p of pages) for (const l of p.lines) {
    const n = alnum(l.text);
    source += n;
    const k = Math.round(l.size * 2) / 2;
    bySize.set(k, (bySize.get(k) ?? 0) + n);
  }
  const body = [...bySize.entries()].sort((a, b) => b[1] - a[1])[0]?.[0] ?? 0;
  const headings = [...markdown.matchAll(/^#{1,6}\s+(.*)$/gm)].map((m) => norm(m[1]!));
  const headingText = headings.join('|');
  let candidates = 0;
  let missed = 0;
  for (const p of pages) {
    const perBlock = new Map<number, number>();
    for (const l of p.lines) perBlock.set(l.block, (perBlock.get(l.block) ?? 0) + 1);
    // The first page's title block (title, authors, addresses, dates) sits above its first line of prose.
    const prose = p.page === pages[0]!.page ? p.lines.find((l) => Math.abs(l.size - body) < 0.5 && l.text.trim().split(/\s+/).length >= 8) : undefined;
    for (const l of p.lines) {
      // The size and style tests first: most lines fail them, and all the tests must pass (ADR 0357).
      const large = body > 0 && l.size >= HEADING_SIZE_RATIO * body;
      const boldAlone = l.bold && perBlock.get(l.block) === 1;
      if (!large && !boldAlone) continue;
      if (l.math || l.sizeEstimated || (prose && l.y0 < prose.y0) || NOT_A_HEADING.test(l.text.trim())) continue;
      const words = l.text.trim().split(/\s+/).filter(Boolean);
      const key = norm(l.text);
      if (words.length === 0 || words.length > HEADING_MAX_WORDS || key.length < 3 || !/\p{L}{2}/u.test(l.text)) continue;
      candidates++;
      if (!headingText.includes(key)) missed++;
    }
  }
  const out = alnum(plain ?? plainText(markdown));
  return {
    missedHeadingRatio: candidates === 0 ? 0 : Math.round((missed / candidates) * 1e4) / 1e4,
    droppedTextRatio: source === 0 ? 0 : Math.round(Math.max(0, 1 - out / source) * 1e4) / 1e4,
  };
}

/**
 * Builds the report; page notes become warnings with page lists. The measures read the Markdown's blocks,
 * tables and running text made once for all of them (ADR 0385).
 */
export function buildReport(
  facts: InputFacts,
  units: readonly (PageExtraction | MarkdownUnit)[],
  markdown: string,
  counts: StructureCounts,
  ctx: ConversionContext,
  layout: LayoutFacts = NO_LAYOUT,
): QualityReport {
  return sharingMarkdown(markdown, () => reportOf(facts, units, markdown, counts, ctx, layout));
}

function reportOf(
  facts: InputFacts,
  units: readonly (PageExtraction | MarkdownUnit)[],
  markdown: string,
  counts: StructureCounts,
  ctx: ConversionContext,
  layout: LayoutFacts,
): QualityReport {
  const which = { textLayer: [] as number[], ocr: [] as number[], empty: [] as number[], failed: [] as number[], skipped: [] as number[] };
  const conf: number[] = [];
  const below: number[] = [];
  const rotated: { page: number; degrees: number }[] = [];
  for (const u of units) {
    const kind = u.kind === 'markup' ? 'textLayer' : u.kind === 'text-layer' ? 'textLayer' : u.kind;
    which[kind as keyof typeof which].push(u.page);
    for (const n of u.notes) {
      if (n === 'EQUATIONS_AS_TEXT') continue; // stacked math not rebuilt (ADR 0134): one warning below
      if (n === 'PAGE_TIMEOUT' || n === 'PAGE_FAILED') ctx.warn('PAGES_FAILED', MESSAGES.PAGES_FAILED!, u.page);
      else if (n in MESSAGES || /^[A-Z_]+$/.test(n)) ctx.warn(n as WarningCode, MESSAGES[n as WarningCode] ?? n.toLowerCase().replace(/_/g, ' '), u.page);
    }
    if ('ocr' in u && u.ocr && u.kind === 'ocr') {
      conf.push(...u.ocr.wordConfidences);
      if (u.ocr.meanConfidence < 60) below.push(u.page);
      if (u.ocr.rotation) rotated.push({ page: u.page, degrees: u.ocr.rotation });
    }
  }
  if (below.length) for (const p of below) ctx.warn('OCR_LOW_CONFIDENCE', 'OCR confidence is below 60 on these pages; expect recognition errors', p);
  // The plain text serves the statistics and textLayerMisses (it was made twice, ADR 0377).
  const plain = plainText(markdown);
  const text = textStatistics(plain, markdown);
  const headingsTotal = Object.values(counts.headingsByLevel).reduce((a, b) => a + b, 0);
  if (headingsTotal === 0 && text.words > 150) ctx.warn('NO_HEADINGS_DETECTED', 'no headings were found; the Markdown is a flat sequence of paragraphs');
  const asText = counts.equationsAsText ?? counts.equations;
  // Pages whose stacked fractions or radicals had no clear evidence (pdf/math-stacks.ts) say so by a note.
  const stacked = units.filter((u) => u.notes.includes('EQUATIONS_AS_TEXT')).map((u) => u.page);
  if (asText > 0 || stacked.length > 0) {
    const parts: string[] = [];
    if (asText > 0) parts.push(`${asText} of ${counts.equations} displayed equations could not be rebuilt as LaTeX (no math fonts, or stacked fractions and radicals) and are kept as plain text`);
    if (stacked.length > 0) parts.push(`stacked fractions or radicals on ${stacked.length} page(s) could not be rebuilt (nested, or unclear) and are kept as plain text`);
    ctx.warn('EQUATIONS_AS_TEXT', parts.join('; '));
    for (const p of stacked) ctx.warn('EQUATIONS_AS_TEXT', parts.join('; '), p);
  }
  if (text.rtlRatio > 0.2) ctx.warn('RIGHT_TO_LEFT_TEXT', 'right-to-left text: the order of mixed-direction lines may be imperfect');
  if (text.longestRepeatedNgram && text.longestRepeatedNgram.words >= 120) ctx.warn('REPETITION_DETECTED', `a passage of ${text.longestRepeatedNgram.words} words occurs ${text.longestRepeatedNgram.occurrences} times`);
  let unreadable = 0;
  for (const m of markdown.matchAll(/<!-- unreadable text: (\d+) characters -->/g)) unreadable += Number(m[1]);
  if (unreadable > 0) ctx.warn('UNMAPPED_GLYPHS', `${unreadable} characters in fonts without a character mapping could not be read; they are marked as unreadable text`);
  if (text.characters > 200 && (text.garbageRatio > 0.05 || text.letterRatio < 0.5)) ctx.warn('LOW_TEXT_QUALITY', 'many characters are not letters; the text may be garbled');
  if (facts.repaired) ctx.warn('DAMAGED_FILE_REPAIRED', 'the file was damaged and repaired while reading; some content may be missing');
  const sorted = [...conf].sort((a, b) => a - b);
  const ocr: QualityReport['ocr'] = {
    pages: which.ocr.length,
    meanConfidence: conf.length ? Math.round((conf.reduce((a, b) => a + b, 0) / conf.length) * 10) / 10 : null,
    p10Confidence: sorted.length ? sorted[Math.floor(sorted.length * 0.1)]! : null,
    pagesBelow60: below,
    rotatedPages: rotated,
  };
  const pages: QualityReport['pages'] = {
    total: facts.pageCount,
    textLayer: which.textLayer.length,
    ocr: which.ocr.length,
    empty: which.empty.length,
    failed: which.failed.length,
    skipped: which.skipped.length,
    billable: units.filter((u) => (u.kind === 'markup' ? u.markdown.trim() !== '' : u.kind === 'text-layer' || (u.kind === 'ocr' && u.lines.length > 0))).length,
    which,
  };
  const structure: QualityReport['structure'] = {
    headings: { total: headingsTotal, byLevel: counts.headingsByLevel, bySource: counts.headingsBySource },
    paragraphs: counts.paragraphs,
    lists: counts.lists,
    listItems: counts.listItems,
    tables: counts.tables,
    figures: counts.figures,
    captions: counts.captions,
    equations: counts.equations,
    footnotes: counts.footnotes,
    references: counts.references,
    codeBlocks: counts.codeBlocks,
    removedHeaderFooterLines: layout.removedLines,
    layoutComplexity: layout.layoutComplexity,
    rowSwitches: layout.rowSwitches,
    marginLinesKept: layout.marginLinesKept,
    imageDominatedPages: imageDominatedPages(units),
    ...textLayerMisses(units, markdown, plain),
    ...markdownFaults(markdown),
  };
  const warnings: QualityWarning[] = [...ctx.warnings.entries()]
    .map(([code, w]) => ({ code, message: w.message, pages: [...w.pages].sort((a, b) => a - b) }))
    .sort((a, b) => a.code.localeCompare(b.code));
  const timings = Object.fromEntries(Object.entries({ ...ctx.timings, total: ctx.now() - ctx.started }).map(([k, v]) => [k, Math.round(v * 10) / 10]));
  return {
    schemaVersion: 1,
    pipeline: PIPELINE_VERSION,
    input: {
      sha256: facts.sha256,
      format: facts.format,
      bytes: facts.bytes,
      pages: facts.pageCount,
      encrypted: facts.encrypted,
      repaired: facts.repaired,
      producer: facts.producer,
      metadata: { ...facts.metadata, language: facts.metadata.language ?? (text.language.code !== 'und' ? text.language.code : null) },
    },
    engine: { backends: [...ctx.backends], tools: { ...ctx.tools }, timings },
    pages,
    text,
    ocr,
    structure,
    warnings,
    score: scoreReport({ pages, text, ocr, structure, format: facts.format }),
  };
}
