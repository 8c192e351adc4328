// Reads MuPDF structured text (`mutool convert -F stext.json -O preserve-images`) into layout lines.
// MuPDF 1.21's JSON writer emits one "line" object per font run, so runs on one baseline are joined back
// into visual lines here; runs separated by a wide gap stay apart (table cells, columns). MuPDF keeps
// right-to-left scripts in visual order, so those runs are turned back into logical order.
import type { Box, LayoutLine, LineSegment } from '../layout-model.js';
import { collapseWhitespace, isSpaceCode, nonSpaceLength } from '../structure/patterns.js';
import { MATH_FONT_RE, isMathFont, mathLine } from '../structure/math-latex.js';
import { hasStackCandidate } from './math-stacks.js';

interface StextFont {
  name?: string;
  family?: string;
  weight?: string;
  style?: string;
  size?: number;
}
interface StextLine {
  bbox?: { x: number; y: number; w: number; h: number };
  font?: StextFont;
  x?: number;
  y?: number;
  text?: string;
  wmode?: number;
  /** LaTeX of a fraction or radical rebuilt by pdf/math-stacks.ts. */
  latex?: string;
}
interface StextBlock {
  type?: string;
  /** Set by pdf/math-stacks.ts: stacked math that could not be rebuilt, so no LaTeX form for its lines. */
  plain?: boolean;
  bbox?: { x: number; y: number; w: number; h: number };
  lines?: StextLine[];
}
export interface StextPage {
  blocks?: StextBlock[];
}

/** Lines and images of one page, as read from the text layer. */
export interface StextPageContent {
  readonly lines: LayoutLine[];
  readonly images: Box[];
  /**
   * The page as MuPDF wrote it, kept only when its math runs look stacked (a fraction or a radical): the
   * extractor traces such a page for its rules and parses it again with the stacks rebuilt (ADR 0134).
   */
  readonly stacked?: StextPage;
  /** Stacks around rules that could not be rebuilt (set by the extractor after the trace). */
  readonly unresolvedStacks?: number;
  /**
   * The page as MuPDF wrote it, kept only when a math-font run holds U+FFFD (an extension-font glyph: a big
   * delimiter or operator): the extractor maps those from the page's trace and parses the page again.
   */
  readonly unmapped?: StextPage;
}

interface Run {
  text: string;
  x0: number;
  y0: number;
  x1: number;
  y1: number;
  baseline: number;
  size: number;
  bold: boolean;
  italic: boolean;
  mono: boolean;
  /** Set in a math font (TeX math italic and symbols, OpenType math fonts). */
  math: boolean;
  /** LaTeX of a rebuilt fraction or radical. */
  latex?: string;
  rtl: boolean;
  /** Characters of `text` that are not white space (the weight of the run's style). */
  chars: number;
}

export interface FontFlags {
  weight: string | undefined;
  style: string | undefined;
  family: string | undefined;
  bold: boolean;
  italic: boolean;
  mono: boolean;
  math: boolean;
}

const BOLD_RE = /bold|black|heavy|semibold|demi|[-,+]bd\b|cmbx|\bmedium\b/i;
const ITALIC_RE = /italic|oblique|[-,]it\b|cmti|cmmi/i;
const MONO_RE = /mono|courier|consol|typewriter|cmtt|menlo|inconsolata|sourcecode|\bcode\b|lucidaconsole|nimbusmon/i;
// Hebrew, Arabic, Syriac, Thaana, NKo and the Arabic presentation forms (Unicode 15, chapters 9-10).
const RTL_CHAR = /[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufeff]/;
const RTL_COUNT = /[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufeff]/g;
const CONTROL_CHARS_G = /[\u0000-\u0008\u000b-\u001f]/g;

/**
 * Style flags per font: the font-name regular expressions run once per distinct font of a parse, not
 * once per run (a 13-page paper has some 10 000 runs in a dozen fonts). Keyed by name, then matched on
 * the other fields (no key string built per run).
 */
function fontFlags(f: StextFont, cache: Map<string, FontFlags[]>): FontFlags {
  const name = f.name ?? '';
  let list = cache.get(name);
  if (!list) {
    list = [];
    cache.set(name, list);
  }
  for (const e of list) if (e.weight === f.weight && e.style === f.style && e.family === f.family) return e;
  const e: FontFlags = {
    weight: f.weight,
    style: f.style,
    family: f.family,
    bold: f.weight === 'bold' || BOLD_RE.test(name),
    italic: f.style === 'italic' || ITALIC_RE.test(name),
    mono: f.family === 'monospace' || MONO_RE.test(name),
    math: MATH_FONT_RE.test(name),
  };
  list.push(e);
  return e;
}

const LTR_RUN = /[\u0660-\u0669\u06f0-\u06f9]+(?:[.,\u066b\u066c][\u0660-\u0669\u06f0-\u06f9]+)*|[A-Za-z0-9\u00c0-\u024f][A-Za-z0-9\u00c0-\u024f.,:%/+\-_]*[A-Za-z0-9\u00c0-\u024f%]|[A-Za-z0-9]/g;

/** Parses the JSON array mutool writes for a page range (one element per page). */
export function parseStextJson(json: string): StextPageContent[] {
  const data = JSON.parse(json) as unknown;
  const pages: StextPage[] = Array.isArray(data)
    ? (data as StextPage[])
    : ((data as { pages?: StextPage[] } | null)?.pages ?? []);
  const fonts = new Map<string, FontFlags[]>();
  return pages.map((p) => parseStextPage(p, fonts));
}

/** Share of right-to-left letters among the letters of a page's lines (0..1). */
export function rtlShare(lines: readonly LayoutLine[]): number {
  if (!lines.some((l) => RTL_CHAR.test(l.text))) return 0;
  let rtl = 0;
  let all = 0;
  for (const l of lines) {
    rtl += (l.text.match(RTL_COUNT) ?? []).length;
    all += (l.text.match(/\p{L}/gu) ?? []).length;
  }
  return all ? rtl / all : 0;
}

/** Converts one page object. */
export function parseStextPage(page: StextPage, fonts: Map<string, FontFlags[]> = new Map()): StextPageContent {
  const lines: LayoutLine[] = [];
  const images: Box[] = [];
  let blockIndex = 0;
  let anyMath = false;
  let anyUnmapped = false;
  for (const block of page.blocks ?? []) {
    const bb = block.bbox;
    if (block.type === 'image') {
      if (bb && bb.w > 0 && bb.h > 0) images.push({ x0: bb.x, y0: bb.y, x1: bb.x + bb.w, y1: bb.y + bb.h });
      continue;
    }
    const runs: Run[] = [];
    for (const l of block.lines ?? []) {
      if (l.wmode === 1) continue; // vertical writing: kept out of the horizontal flow
      const raw = l.text ?? '';
      // One scan of the run's code units finds control characters, right-to-left letters and the
      // non-space count (the three regular expressions per run they replace gave the same answers).
      let control = false;
      let rtl = false;
      let chars = 0;
      for (let i = 0; i < raw.length; i++) {
        const c = raw.charCodeAt(i);
        if (c < 0x20) {
          if (c <= 0x08 || c >= 0x0b) control = true;
        } else if ((c >= 0x0590 && c <= 0x08ff) || (c >= 0xfb1d && c <= 0xfdff) || (c >= 0xfe70 && c <= 0xfeff)) rtl = true;
        if (!isSpaceCode(c)) chars++;
      }
      let text = raw;
      if (control) {
        text = raw.replace(CONTROL_CHARS_G, '');
        chars = nonSpaceLength(text);
      }
      if (!l.bbox || text.length === 0) continue;
      // Rotated text (arXiv side stamps, vertical table headers) comes as a tall, narrow box: it is not
      // part of the horizontal reading flow.
      if (l.bbox.h > 3 * l.bbox.w && text.trim().length >= 4) continue;
      const f = l.font ?? {};
      const size = f.size && f.size > 0 ? f.size : l.bbox.h * 0.8;
      const flags = fontFlags(f, fonts);
      if (flags.math && l.latex === undefined) anyMath = true;
      if (flags.math && text.includes('\uFFFD')) anyUnmapped = true;
      runs.push({
        text,
        x0: l.bbox.x,
        y0: l.bbox.y,
        x1: l.bbox.x + l.bbox.w,
        y1: l.bbox.y + l.bbox.h,
        baseline: l.y ?? l.bbox.y + l.bbox.h,
        size,
        bold: flags.bold,
        italic: flags.italic,
        mono: flags.mono,
        math: flags.math || l.latex !== undefined,
        ...(l.latex !== undefined ? { latex: l.latex } : {}),
        rtl,
        chars,
      });
    }
    for (const group of groupRuns(runs)) {
      const line = buildLine(group, blockIndex, block.plain === true);
      if (!line) continue;
      const segments = segmentsOf(group, blockIndex, block.plain === true);
      lines.push(segments ? { ...line, segments } : line);
    }
    blockIndex++;
  }
  const stacked = anyMath && hasStackCandidate(page, isMathFont);
  return { lines, images, ...(stacked ? { stacked: page } : {}), ...(anyUnmapped ? { unmapped: page } : {}) };
}

/** Splits the runs of a block into visual lines, then splits each line at wide gaps. */
function groupRuns(runs: Run[]): Run[][] {
  const rows: Run[][] = [];
  let cur: Run[] = [];
  for (const r of runs) {
    const prev = cur[cur.length - 1];
    if (prev && sameRow(prev, r)) cur.push(r);
    else {
      if (cur.length) rows.push(cur);
      cur = [r];
    }
  }
  if (cur.length) rows.push(cur);
  const out: Run[][] = [];
  for (const row of rows) {
    const rtl = isRtlRow(row);
    const ordered = [...row].sort((a, b) => (rtl ? b.x1 - a.x1 : a.x0 - b.x0));
    const parts: Run[][] = [];
    let seg: Run[] = [];
    for (const r of ordered) {
      const p = seg[seg.length - 1];
      if (p && !r.rtl && !p.rtl) {
        const gap = r.x0 - p.x1;
        const size = Math.max(p.size, r.size, 1);
        // A gap of more than 1.5 ems inside one row is a column or cell boundary, not a word space
        // (justified prose stretches spaces to about one em at most).
        if (gap > Math.max(1.5 * size, 9)) {
          parts.push(seg);
          seg = [];
        }
      }
      seg.push(r);
    }
    if (seg.length) parts.push(seg);
    if (parts.length === 2 && labelBeforeTab(parts[0]!, parts[1]!)) out.push([...parts[0]!, ...parts[1]!]);
    else out.push(...parts);
  }
  return out;
}

/**
 * An outline or list label standing alone before the rest of its row ("2.3.6", "I.", "4)", "a)"):
 * word processors set a numbered heading's or list item's number and its text apart with a tab, often
 * more than the 1.5 ems that cut a row into cells (ADR 0363).
 */
const TAB_LABEL_RE = /^(?:(?:\d{1,2}|[A-Z])(?:\.\d{1,2}){0,4}\.?|[IVXL]{1,5}\.|\d{1,2}\)|[a-z]\))$/;

/**
 * Whether the row's two parts are a label and the text it numbers, set apart by a tab: the label alone
 * in its part, in the same type as the text (size within 10%, same weight), the text starting with a
 * letter, the gap under 8 ems (a tab stop, not a column). The joined line keeps both as its segments,
 * so a table whose first column holds such numbers is still read as cells (`detectTables`).
 */
function labelBeforeTab(label: Run[], rest: Run[]): boolean {
  const text = label.map((r) => r.text).join('').trim();
  if (!TAB_LABEL_RE.test(text)) return false;
  const a = label[label.length - 1]!;
  const b = rest[0]!;
  if (!/^\p{L}/u.test(b.text.trim())) return false;
  const size = Math.max(a.size, b.size, 1);
  if (Math.abs(a.size - b.size) > 0.1 * size || a.bold !== b.bold || a.mono || b.mono) return false;
  return b.x0 - a.x1 <= 8 * size;
}

/** Gap between two runs of a line, in ems, over which the line is cut into segments (ADR 0341). */
const SEGMENT_GAP_EM = 0.8;

/**
 * The parts of a left-to-right line between gaps of more than 0.8 em (MuPDF starts a new line there, and
 * `groupRuns` joins it back up to 1.5 ems): table cells 12 pt apart (LaTeX's `tabcolsep` on both sides)
 * at 10-11 pt. Null when the line has no such gap.
 */
function segmentsOf(runs: Run[], block: number, plain: boolean): LineSegment[] | null {
  if (runs.length < 2 || runs.some((r) => r.rtl)) return null;
  const parts: Run[][] = [[runs[0]!]];
  for (let i = 1; i < runs.length; i++) {
    const p = runs[i - 1]!;
    const r = runs[i]!;
    if (r.x0 - p.x1 > SEGMENT_GAP_EM * Math.max(p.size, r.size, 1)) parts.push([r]);
    else parts[parts.length - 1]!.push(r);
  }
  if (parts.length < 2) return null;
  const out: LineSegment[] = [];
  for (const part of parts) {
    const l = buildLine(part, block, plain);
    if (l) out.push({ text: l.text, x0: l.x0, x1: l.x1 });
  }
  return out.length >= 2 ? out : null;
}

function sameRow(a: Run, b: Run): boolean {
  const overlap = Math.min(a.y1, b.y1) - Math.max(a.y0, b.y0);
  const minH = Math.max(1, Math.min(a.y1 - a.y0, b.y1 - b.y0));
  if (overlap < 0.45 * minH) return false;
  // A run that starts well left of the previous one's start begins a new line (stream order wraps).
  if (!a.rtl && !b.rtl && b.x0 < a.x0 - 1 && b.x1 <= a.x0 + 1) return false;
  return true;
}

function isRtlRow(row: Run[]): boolean {
  // Runs without a right-to-left letter add nothing to the count: most rows have none at all.
  if (!row.some((r) => r.rtl)) return false;
  let rtl = 0;
  let all = 0;
  for (const r of row) {
    if (r.rtl) rtl += (r.text.match(RTL_COUNT) ?? []).length;
    all += r.chars;
  }
  return all > 0 && rtl / all > 0.3;
}

/** MuPDF emits right-to-left runs in visual order: reverse them, then restore embedded left-to-right runs. */
export function visualToLogical(text: string): string {
  const reversed = [...text].reverse().join('');
  return reversed.replace(LTR_RUN, (m) => [...m].reverse().join(''));
}

/** Gaps (in ems) at or below which two runs always touch, and above which they are always separate words. */
const LETTER_GAP_EM = 0.08;
const WORD_GAP_EM = 0.25;
/** Threshold used when a row gives no evidence of its own (the historical fixed rule). */
const DEFAULT_GAP_EM = 0.12;

/**
 * The word-space threshold (in ems of the larger neighbouring font size) for the run boundaries of one
 * visual row. PDFs that position glyphs one by one (tracking, justification by glyph offsets) make MuPDF
 * emit a run per glyph or syllable with small positive gaps between them, which a fixed 0.12 em rule
 * turns into "Bus i ne s s"; a row whose runs are whole words with tight spacing loses its spaces under a
 * larger fixed rule. So the row's own gaps decide: when they fall into two groups (letter gaps and word
 * gaps, a jump of at least 1.6x and 0.05 em between neighbours in sorted order), the threshold sits in
 * the jump; when they are all alike and the runs are fragments of words (three or fewer characters on
 * average, no spaces of their own), they are letter gaps; otherwise the default. Gaps under
 * {@link LETTER_GAP_EM} never and gaps over {@link WORD_GAP_EM} always make a space, so the extractor's
 * own word boundaries (spaces inside runs are kept as they are) are never undone.
 */
function wordGapThreshold(runs: readonly Run[], rtl: boolean): number {
  const gaps: number[] = [];
  let ambiguous = false;
  for (let i = 1; i < runs.length; i++) {
    const a = runs[i - 1]!;
    const b = runs[i]!;
    const em = (rtl ? a.x0 - b.x1 : b.x0 - a.x1) / Math.max(a.size, b.size, 1);
    if (em > LETTER_GAP_EM && em <= WORD_GAP_EM) ambiguous = true;
    if (em > 0.005) gaps.push(em);
  }
  // Every gap is clearly a letter gap or a word gap: any threshold in the band gives the same answer.
  if (!ambiguous) return DEFAULT_GAP_EM;
  gaps.sort((x, y) => x - y);
  let bestJump = 0;
  let cut = -1;
  for (let i = 1; i < gaps.length; i++) {
    const lo = gaps[i - 1]!;
    const hi = gaps[i]!;
    const jump = hi / Math.max(lo, 0.01);
    if (hi - lo >= 0.05 && jump >= 1.6 && jump > bestJump && hi > LETTER_GAP_EM && lo <= WORD_GAP_EM) {
      bestJump = jump;
      cut = (lo + hi) / 2;
    }
  }
  if (cut > 0) return Math.min(WORD_GAP_EM, Math.max(LETTER_GAP_EM, cut));
  const fragments = runs.length >= 3 && runs.every((r) => !/\s/.test(r.text.trim())) && runs.reduce((n, r) => n + r.chars, 0) / runs.length <= 3;
  return fragments ? WORD_GAP_EM : DEFAULT_GAP_EM;
}

function buildLine(runs: Run[], block: number, plain = false): LayoutLine | null {
  let text = '';
  let prev: Run | undefined;
  const rtl = isRtlRow(runs);
  const threshold = runs.length > 1 ? wordGapThreshold(runs, rtl) : 0;
  const hasMath = !rtl && !plain && runs.some((r) => r.math);
  const spaces: boolean[] = [];
  for (const r of runs) {
    const t = r.rtl ? visualToLogical(r.text) : r.text;
    let space = false;
    if (prev) {
      const gap = rtl ? prev.x0 - r.x1 : r.x0 - prev.x1;
      // In a monospaced face a space is a whole cell (0.6 em): a gap under half a cell is not one.
      const limit = r.mono && prev.mono ? Math.max(threshold, 0.3) : threshold;
      const needsSpace = gap > limit * Math.max(r.size, prev.size) || (rtl && r.rtl !== prev.rtl && gap > 0.5);
      space = needsSpace && !(text.length > 0 && isSpaceCode(text.charCodeAt(text.length - 1))) && !/^\s/.test(t);
      if (space) text += ' ';
    }
    if (hasMath) spaces.push(space || /^\s/.test(t));
    text += t;
    prev = r;
  }
  text = collapseWhitespace(text).trim();
  if (!text) return null;
  const math = hasMath ? mathLine(runs, spaces) : null;
  // Dominant style by character count, ignoring raised or lowered small runs (footnote marks, indices).
  const weights = new Map<number, number>();
  let bold = 0;
  let italic = 0;
  let mono = 0;
  let chars = 0;
  let x0 = Infinity;
  let y0 = Infinity;
  let x1 = -Infinity;
  let y1 = -Infinity;
  for (const r of runs) {
    if (r.x0 < x0) x0 = r.x0;
    if (r.y0 < y0) y0 = r.y0;
    if (r.x1 > x1) x1 = r.x1;
    if (r.y1 > y1) y1 = r.y1;
    const n = r.chars;
    if (n === 0) continue;
    chars += n;
    weights.set(r.size, (weights.get(r.size) ?? 0) + n);
    if (r.bold) bold += n;
    if (r.italic) italic += n;
    if (r.mono) mono += n;
  }
  let size = runs[0]!.size;
  let best = -1;
  for (const [s, w] of weights) {
    if (w > best || (w === best && s > size)) {
      best = w;
      size = s;
    }
  }
  return {
    text,
    x0,
    y0,
    x1,
    y1,
    size,
    // A line is bold when nearly all of it is: a bold run-in phrase does not make the line a heading.
    bold: chars > 0 && bold / chars > 0.8,
    italic: chars > 0 && italic / chars > 0.6,
    mono: chars > 0 && mono / chars > 0.6,
    block,
    ...(math && math !== text ? { math: collapseWhitespace(math).trim() } : {}),
  };
}
