// Reads MuPDF structured text (`mutool convert -F stext.json -O preserve-images`) into layout lines.
// MuPDF 1.21's JSON writer emits one "line" object per font run, so runs on one baseline are joined back
// into visual lines here; runs separated by a wide gap stay apart (table cells, columns). MuPDF keeps
// right-to-left scripts in visual order, so those runs are turned back into logical order.
import type { Box, LayoutLine, LineSegment } from '../layout-model.js';
import { collapseWhitespace, isSpaceCode, nonSpaceLength } from '../structure/patterns.js';
import { MATH_FONT_RE, SYMBOL_FONT_RE, isMathFont, mathLine } from '../structure/math-latex.js';
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
  /** Set in a small-capitals font (CMCSC10, LM Roman Caps): a run-in heading's style. */
  caps: boolean;
  /** Set in a math font (TeX math italic and symbols, OpenType math fonts). */
  math: boolean;
  /** Set in a math symbol font (CMSY and its kin), whose capitals are calligraphic letters (ADR 0380). */
  symbol?: boolean;
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
  caps: boolean;
  math: boolean;
  symbol: boolean;
}

// Computer Modern's bold extended faces in every family (cmbx, cmssbx, cm-super's sfbx and sfsx, ecbx).
const BOLD_RE = /bold|black|heavy|semibold|demi|[-,+]bd\b|(?:cm|ss|sf|ec)bx|sfsx|\bmedium\b/i;
const ITALIC_RE = /italic|oblique|[-,]it\b|cmti|cmmi/i;
const CAPS_RE = /csc\d|caps/i;
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
    caps: CAPS_RE.test(name),
    math: MATH_FONT_RE.test(name),
    symbol: SYMBOL_FONT_RE.test(name),
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

/** How a run's text is set: upright, turned 90° counter-clockwise (reads upward) or clockwise (reads downward). */
type Turn = 'up' | 'ccw' | 'cw';

/**
 * A run's turn from MuPDF's box and the origin of its first glyph (`x`, `y`): upright text starts at the
 * box's left edge with the baseline low in the box; text that reads upward starts at the bottom right
 * corner (the baseline is the box's right edge); text that reads downward starts at the top left corner.
 */
function turnOf(bb: { x: number; y: number; w: number; h: number }, ox: number | undefined, oy: number | undefined): Turn {
  if (ox === undefined || oy === undefined || !(bb.w > 0) || !(bb.h > 0)) return 'up';
  const fx = (ox - bb.x) / bb.w;
  const fy = (oy - bb.y) / bb.h;
  if (fx > 0.6 && fy > 0.75) return 'ccw';
  if (fx < 0.4 && fy < 0.25) return 'cw';
  return 'up';
}

/**
 * Rotated text that is body content (ADR 0362): at least {@link ROTATED_BODY_LINES} lines (distinct
 * baselines) of rotated text, spanning {@link ROTATED_BODY_EXTENT} points along their reading direction
 * with {@link ROTATED_BODY_CHARS} letters and digits: a `sidewaystable`, an `lscape` page, a rotated block of
 * prose. A side stamp (arXiv identifier, "Downloaded from ..."), a draft line along the margin or the
 * rotated column heads of an upright table stay out of the flow.
 */
const ROTATED_BODY_LINES = 3;
const ROTATED_BODY_EXTENT = 150;
const ROTATED_BODY_CHARS = 40;
/** Rotated runs set this much larger than the page's upright text are display type (a cover's side title). */
const ROTATED_DISPLAY_RATIO = 1.5;
/** A slanted run's box against its size, both ways (upright text: about 1 high; rotated: about 1 wide). */
const DIAGONAL_EXTENT = 2;
/** How far (in sizes) right of its box's left edge a slanted run's first origin sits at least. */
const DIAGONAL_LEAD = 0.25;
/** Slanted words this much larger than the page's upright text are a watermark ("DRAFT", "CONFIDENTIAL"). */
const WATERMARK_RATIO = 2;

/**
 * Watermarks: words drawn at a slant across the page in type at least {@link WATERMARK_RATIO} times the
 * page's upright text (a preprint's "draft", "CONFIDENTIAL", "SAMPLE"). They are not in the text a reader
 * reads (pdftotext prints them as stray words; here they became a `#` heading on every page) and go the way
 * of margin stamps. Small slanted labels (a figure's axis) keep their place.
 */
function diagonalWatermarks(runs: readonly PendingRun[]): Set<PendingRun> {
  const slanted = runs.filter((p) => p.diagonal);
  if (slanted.length === 0) return new Set();
  const upright = medianSize(runs.filter((p) => !p.diagonal && !p.tall && p.turn === 'up'));
  return new Set(slanted.filter((p) => upright === 0 || p.run.size >= WATERMARK_RATIO * upright));
}

/** Two letters or digits in a row: a word, a number. */
const WORDISH = /[\p{L}\p{N}]{2}/u;
const ALNUM_G = /[\p{L}\p{N}]/gu;

interface PendingRun {
  run: Run;
  turn: Turn;
  /** Rotated text of four or more characters in a box over three times taller than wide. */
  tall: boolean;
  /** A word set at a slant: its box over twice its size both ways (a diagonal "DRAFT" across the page). */
  diagonal: boolean;
  /** Origin of the first glyph across the reading direction (the baseline's x for rotated text). */
  ox: number;
  /** Set in a math font (the run's `math` also covers rebuilt stacks). */
  mathFont: boolean;
  /** Where the first glyph's origin sits in the box, 0..1 from the left and from the top. */
  fx: number;
  fy: number;
}

/** Converts one page object. */
export function parseStextPage(raw: StextPage, fonts: Map<string, FontFlags[]> = new Map()): StextPageContent {
  const page = tightBoxes(raw);
  const lines: LayoutLine[] = [];
  const images: Box[] = [];
  let blockIndex = 0;
  let anyMath = false;
  let anyUnmapped = false;
  const blocks: { runs: PendingRun[]; plain: boolean }[] = [];
  for (const block of page.blocks ?? []) {
    const bb = block.bbox;
    if (block.type === 'image') {
      if (bb && bb.w > 0 && bb.h > 0) images.push({ x0: bb.x, y0: bb.y, x1: bb.x + bb.w, y1: bb.y + bb.h });
      continue;
    }
    const runs: PendingRun[] = [];
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
      // Rotated text (arXiv side stamps, vertical table headers, sideways tables) comes as a tall, narrow
      // box: it is kept only when the page's rotated text is body content (rotatedBody below).
      // (An upright run in a font whose line box is several ems tall, `, 𝑦` in STIX Two Math, has had its box
      // brought to its glyphs' extent by `tightBoxes`: it is not taken for rotated text.)
      const tall = l.bbox.h > 3 * l.bbox.w && text.trim().length >= 4;
      const turn = turnOf(l.bbox, l.x, l.y);
      const f = l.font ?? {};
      const size = f.size && f.size > 0 ? f.size : (tall ? l.bbox.w : l.bbox.h) * 0.8;
      // Upright text's box is about one size high and rotated text's one size wide; a box over twice the
      // size both ways, with the first glyph's origin well inside it (the glyphs of a word rising at a slant
      // reach left of where it starts), holds a word drawn at a slant: MuPDF gives a line's box, not its
      // direction, in JSON. Upright text starts at its box's left edge, also in fonts whose glyph boxes are
      // several sizes high (Iwona: a 14 pt heading in a box 58 pt high).
      const diagonal =
        !tall && f.size !== undefined && f.size > 0 && l.x !== undefined && l.x - l.bbox.x > DIAGONAL_LEAD * size && l.bbox.h > DIAGONAL_EXTENT * size && l.bbox.w > DIAGONAL_EXTENT * size && WORDISH.test(text);
      const flags = fontFlags(f, fonts);
      // A shadow or an overprint (fake bold): the same text at the same size drawn again within 0.15 em of
      // the run before it (NRPE's headings: "1. I" at x 36 and at x 36 one point lower). Read once, as
      // pdftotext reads it; twice it made "I1. INTRODUCTIONNTRODUCTION" (ADR 0369).
      const x0 = l.bbox.x;
      const base = l.y ?? l.bbox.y + l.bbox.h;
      let shadow = false;
      for (let k = Math.max(0, runs.length - 2); k < runs.length && !shadow; k++) {
        const r = runs[k]!.run;
        shadow = r.text === text && Math.abs(r.size - size) <= 0.05 * size && Math.abs(r.x0 - x0) <= 0.15 * size && Math.abs(r.baseline - base) <= 0.15 * size && Math.abs(r.x1 - r.x0 - l.bbox.w) <= 0.15 * size;
      }
      if (shadow) continue;
      runs.push({
        run: {
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
          caps: flags.caps,
          math: flags.math || l.latex !== undefined,
          ...(flags.symbol ? { symbol: true } : {}),
          ...(l.latex !== undefined ? { latex: l.latex } : {}),
          rtl,
          chars,
        },
        turn,
        tall,
        diagonal,
        ox: l.x ?? l.bbox.x,
        mathFont: flags.math,
        fx: l.x !== undefined && l.bbox.w > 0 ? (l.x - l.bbox.x) / l.bbox.w : 0,
        fy: l.y !== undefined && l.bbox.h > 0 ? (l.y - l.bbox.y) / l.bbox.h : 1,
      });
    }
    blocks.push({ runs, plain: block.plain === true });
  }
  const allRuns = blocks.flatMap((b) => b.runs);
  const body = rotatedBody(allRuns);
  const watermarks = diagonalWatermarks(allRuns);
  const turnedLines = new Set<LayoutLine>();
  /** The lines of one block's runs (a block index of their own, even when they make no line). */
  const pushLines = (runs: Run[], plain: boolean, turnedBlock = false): void => {
    for (const group of groupRuns(runs)) {
      const line = buildLine(group, blockIndex, plain);
      if (!line) continue;
      const segments = segmentsOf(group, blockIndex, plain);
      const out = segments ? { ...line, segments } : line;
      if (turnedBlock) turnedLines.add(out);
      lines.push(out);
    }
    blockIndex++;
  };
  const turned: Run[] = [];
  for (const block of blocks) {
    const upright: Run[] = [];
    for (const p of block.runs) {
      const kept = body !== null && body.members.has(p);
      if (!kept && p.tall) continue;
      if (watermarks.has(p)) continue;
      if (p.mathFont && p.run.latex === undefined) anyMath = true;
      if (p.mathFont && p.run.text.includes('\uFFFD')) anyUnmapped = true;
      if (kept) turned.push(turnRun(p, body.turn, body.region));
      else upright.push(p.run);
    }
    pushLines(upright, block.plain);
  }
  for (const runs of reblockTurned(turned)) pushLines(runs, false, true);
  // The turned region takes the rotated block's width as its height: upright lines below it move down by
  // what it grew, so nothing overlaps.
  if (body) {
    const grow = body.region.x1 - body.region.x0 - (body.region.y1 - body.region.y0);
    if (grow > 0) {
      for (let i = 0; i < lines.length; i++) {
        const l = lines[i]!;
        if (!turnedLines.has(l) && l.y0 >= body.region.y1 - 0.5) lines[i] = { ...l, y0: l.y0 + grow, y1: l.y1 + grow };
      }
    }
  }
  const stacked = anyMath && hasStackCandidate(page, isMathFont);
  return { lines, images, ...(stacked ? { stacked: page } : {}), ...(anyUnmapped ? { unmapped: page } : {}) };
}

/** An OpenType math font's name (unicode-math's fonts). */
const MATH_FONT_NAME_RE = /math/i;

/** Extent of an inflated box kept above the top baseline and below the bottom one, in ems (ADR 0367 session d). */
const INFLATED_UP_EM = 1.05;
const INFLATED_DOWN_EM = 0.35;

/**
 * Whether a run's first glyph has its origin at the box's left edge with the baseline inside the box (between
 * 0.3 and 0.9 of its height from the top): upright text. Text turned a quarter has its origin at the box's
 * right edge (reading upward) or at its top (reading downward), as has a CMEX delimiter piece.
 */
function uprightOrigin(l: StextLine): boolean {
  if (!l.bbox || l.x === undefined || l.y === undefined || !(l.bbox.h > 0)) return false;
  const fy = (l.y - l.bbox.y) / l.bbox.h;
  return l.x - l.bbox.x <= Math.max(1, 0.1 * l.bbox.w) && fy >= 0.3 && fy <= 0.9;
}

/**
 * The page with the boxes of upright runs over 2.5 of their size tall brought to their glyphs (ADR 0367
 * session d). Some fonts' line boxes reach ems above and below the glyphs (STIX Two Math: 42 pt at 10 pt,
 * 2.6 em up and 1.6 em down): a fraction's numerator and denominator, a display and the prose lines around it
 * overlapped and were read as one row, scripts were read by those boxes, the fraction rebuild
 * (math-stacks.ts) found no parts on one row, and a short run (`, 𝑦` between two subscripts) was tall and
 * narrow enough to be left out as rotated text. Such a box keeps 1.05 em above its top baseline and 0.35 em
 * below its bottom one, about a text font's box; the baselines are where the font's own box (its shortest
 * run on the page, on one baseline) puts them, since a run's origin is its first glyph's, and a run may
 * start on a script's baseline. A page without such boxes is returned as it is.
 */
export function tightBoxes(page: StextPage): StextPage {
  const candidate = (l: StextLine): boolean => !!l.bbox && l.wmode !== 1 && (l.font?.size ?? 0) > 0 && l.bbox.h > 2.5 * l.font!.size! && uprightOrigin(l);
  if (!(page.blocks ?? []).some((b) => (b.lines ?? []).some(candidate))) return page;
  const boxes = fontBoxes(page);
  // Only an OpenType math font (`...Math` in its name: STIX Two Math, Latin Modern Math, XITS Math, Cambria
  // Math) whose every run is so tall (its shortest one too) and which sets letters or digits: an extension
  // font's big operators and delimiters (newtx's txexs, STIX's size variants) are as tall as their boxes, a
  // picture font's circles too (LCIRCLE, whose glyphs map to letters), and a tall box of a text font is a
  // run over several baselines.
  const box = (l: StextLine) => {
    if (!candidate(l)) return undefined;
    const fb = boxes.get(`${l.font?.name ?? ''}/${l.font?.size ?? 0}`);
    return fb && fb.letters && fb.height > 2.5 * l.font!.size! && MATH_FONT_NAME_RE.test(l.font?.name ?? '') ? fb : undefined;
  };
  if (!(page.blocks ?? []).some((b) => (b.lines ?? []).some((l) => box(l)))) return page;
  return {
    ...page,
    blocks: page.blocks!.map((b) =>
      !(b.lines ?? []).some((l) => box(l))
        ? b
        : {
            ...b,
            lines: b.lines!.map((l) => {
              const fb = box(l);
              if (!fb) return l;
              const size = l.font!.size!;
              const { x, y, w, h } = l.bbox!;
              const y0 = Math.max(y, y + fb.ascent - INFLATED_UP_EM * size);
              const y1 = Math.min(y + h, y + h - (fb.height - fb.ascent) + INFLATED_DOWN_EM * size);
              return y1 > y0 ? { ...l, bbox: { x, y: y0, w, h: y1 - y0 } } : l;
            }),
          },
    ),
  };
}

/**
 * Per font (name and size) on a page, its shortest upright run's box height and ascent (origin to top): a run
 * on one baseline, so the font's own box around a baseline, which MuPDF gives each run of it; and whether any
 * of its runs holds a letter or a digit.
 */
function fontBoxes(page: StextPage): Map<string, { height: number; ascent: number; letters: boolean }> {
  const out = new Map<string, { height: number; ascent: number; letters: boolean }>();
  for (const block of page.blocks ?? []) {
    for (const l of block.lines ?? []) {
      if (!l.bbox || !uprightOrigin(l)) continue;
      const key = `${l.font?.name ?? ''}/${l.font?.size ?? 0}`;
      const cur = out.get(key);
      const letters = (cur?.letters ?? false) || /[\p{L}\p{N}]/u.test(l.text ?? '');
      if (!cur || l.bbox.h < cur.height) out.set(key, { height: l.bbox.h, ascent: l.y! - l.bbox.y, letters });
      else cur.letters = letters;
    }
  }
  return out;
}

/**
 * The page's rotated body content, if any: the turn of its tall rotated runs (the more common of the two),
 * their region, and the runs that belong to it (the tall ones and the short rotated runs inside the region:
 * a table's numbers, single letters). Null when the rotated text is a stamp or side note.
 */
function rotatedBody(runs: readonly PendingRun[]): { turn: 'ccw' | 'cw'; region: Box; members: Set<PendingRun> } | null {
  // Only runs with words count as evidence: the pieces of big delimiters and radicals (CMEX, U+FFFD) are tall
  // and narrow too, with their origin at the top.
  const tall = runs.filter((p) => p.tall && p.turn !== 'up' && WORDISH.test(p.run.text));
  if (tall.length < ROTATED_BODY_LINES) return null;
  const ccw = tall.filter((p) => p.turn === 'ccw').length;
  const turn: 'ccw' | 'cw' = ccw * 2 >= tall.length ? 'ccw' : 'cw';
  const core = tall.filter((p) => p.turn === turn);
  const baselines = new Set(core.map((p) => Math.round(p.ox / 3)));
  const chars = core.reduce((n, p) => n + (p.run.text.match(ALNUM_G)?.length ?? 0), 0);
  const region: { x0: number; y0: number; x1: number; y1: number } = {
    x0: Math.min(...core.map((p) => p.run.x0)),
    y0: Math.min(...core.map((p) => p.run.y0)),
    x1: Math.max(...core.map((p) => p.run.x1)),
    y1: Math.max(...core.map((p) => p.run.y1)),
  };
  if (baselines.size < ROTATED_BODY_LINES || region.y1 - region.y0 < ROTATED_BODY_EXTENT || chars < ROTATED_BODY_CHARS) return null;
  // Display type turned along a cover's edge (erdc's "Engineer Research and Development Center" at 21 pt
  // beside an 11 pt page) is decoration, not body: body text turned sideways keeps the page's sizes.
  const upright = medianSize(runs.filter((p) => p.turn === 'up' && !p.tall));
  if (upright > 0 && medianSize(core) > ROTATED_DISPLAY_RATIO * upright) return null;
  const pad = 12;
  const members = new Set<PendingRun>(core);
  // Short rotated runs (a table's numbers, scripts, single letters) join when their box comes within 1.5
  // ems (at least 12 pt) of the region, which then grows to take them in, until none is left to join.
  for (let grew = true; grew; ) {
    grew = false;
    for (const p of runs) {
      // A short run with a leading space (" ±") starts inside its box: not clearly upright either.
      // (Only for text reading upward: an upright run's origin is at its box's left edge, while its height
      // above the baseline varies with the font's box, so no such test holds for text reading downward.)
      const leaning = p.turn === 'up' && turn === 'ccw' && p.fx > 0.3;
      if ((p.turn !== turn && !leaning) || p.tall || members.has(p)) continue;
      const near = Math.max(pad, 1.5 * p.run.size);
      if (p.run.x1 < region.x0 - near || p.run.x0 > region.x1 + near || p.run.y1 < region.y0 - near || p.run.y0 > region.y1 + near) continue;
      members.add(p);
      region.x0 = Math.min(region.x0, p.run.x0);
      region.y0 = Math.min(region.y0, p.run.y0);
      region.x1 = Math.max(region.x1, p.run.x1);
      region.y1 = Math.max(region.y1, p.run.y1);
      grew = true;
    }
  }
  return { turn, region, members };
}

/**
 * The turned runs of a page in blocks of their own making: MuPDF's blocks for rotated text split a table's
 * columns and put a "±" or a one-digit column apart. Rows are runs whose extents overlap by 45% of the
 * lower one (as `sameRow`), each read left to right; a new block starts where the gap to the next row is
 * over 0.8 of the larger font size (a caption above a table, a note below it).
 */
function reblockTurned(runs: readonly Run[]): Run[][] {
  const sorted = [...runs].sort((a, b) => a.y0 + a.y1 - (b.y0 + b.y1));
  const rows: { runs: Run[]; y0: number; y1: number; size: number }[] = [];
  for (const r of sorted) {
    const row = rows[rows.length - 1];
    const overlap = row ? Math.min(row.y1, r.y1) - Math.max(row.y0, r.y0) : -1;
    if (row && overlap >= 0.45 * Math.max(1, Math.min(row.y1 - row.y0, r.y1 - r.y0))) {
      row.runs.push(r);
      row.y0 = Math.min(row.y0, r.y0);
      row.y1 = Math.max(row.y1, r.y1);
      row.size = Math.max(row.size, r.size);
    } else rows.push({ runs: [r], y0: r.y0, y1: r.y1, size: r.size });
  }
  const blocks: Run[][] = [];
  let prev: (typeof rows)[number] | undefined;
  for (const row of rows) {
    row.runs.sort((a, b) => a.x0 - b.x0);
    if (!prev || row.y0 - prev.y1 > 0.8 * Math.max(row.size, prev.size)) blocks.push([]);
    blocks[blocks.length - 1]!.push(...row.runs);
    prev = row;
  }
  return blocks;
}

/** The size most characters of these runs are set in (the median by characters); 0 without characters. */
function medianSize(runs: readonly PendingRun[]): number {
  const sorted = runs.filter((p) => p.run.chars > 0).sort((a, b) => a.run.size - b.run.size);
  const total = sorted.reduce((n, p) => n + p.run.chars, 0);
  let seen = 0;
  for (const p of sorted) {
    seen += p.run.chars;
    if (seen * 2 >= total) return p.run.size;
  }
  return 0;
}

/**
 * A rotated run in the frame of its own text, placed at the region's top left corner: reading direction
 * left to right, lines top to bottom, so rows, columns and tables are found as for upright text.
 */
function turnRun(p: PendingRun, turn: 'ccw' | 'cw', r: Box): Run {
  const b = p.run;
  if (turn === 'ccw') {
    // Reads upward; the next line is to the right.
    return { ...b, x0: r.x0 + (r.y1 - b.y1), x1: r.x0 + (r.y1 - b.y0), y0: r.y0 + (b.x0 - r.x0), y1: r.y0 + (b.x1 - r.x0), baseline: r.y0 + (p.ox - r.x0) };
  }
  // Reads downward; the next line is to the left.
  return { ...b, x0: r.x0 + (b.y0 - r.y0), x1: r.x0 + (b.y1 - r.y0), y0: r.y0 + (r.x1 - b.x1), y1: r.y0 + (r.x1 - b.x0), baseline: r.y0 + (r.x1 - p.ox) };
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
        // A bare number set small on the baseline of the row's text, more than a word space before it: a
        // line number in the margin (every fifth line, as critical editions and `lineno` set them), a line
        // of its own for the line-number rule (ADR 0364). A footnote's mark is raised (ABNT sets it an em
        // before its text); a list label is set like its text.
        const marginNumber = parts.length === 0 && seg.length === 1 && /^\d{1,4}$/.test(p.text.trim()) && p.size <= 0.85 * r.size && gap > 0.5 * r.size && Math.abs(p.baseline - r.baseline) <= 0.1 * r.size;
        if (gap > Math.max(1.5 * size, 9) || marginNumber) {
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

/** A run's style for {@link leadEnd}: bold, italic, small capitals, roman, or math and monospaced ('x'). */
const leadStyle = (r: Run): string => (r.math || r.mono ? 'x' : r.bold ? 'b' : r.italic ? 'i' : r.caps ? 'c' : 'r');
const HAS_LETTER_RE = /\p{L}/u;

/**
 * Where a line's lead ends: the index of the first run with letters set otherwise than the line's first
 * words, when those are bold, italic or in small capitals (a run-in title, "1.1 **Essential Initial
 * Commands.** To begin"); runs before the first letters (a section number, in any text face) belong to
 * the lead. -1 when the line has no such lead (its first words are roman, or all of it is in one style).
 */
function leadEnd(runs: readonly Run[]): number {
  let k = 0;
  while (k < runs.length && !HAS_LETTER_RE.test(runs[k]!.text)) {
    if (runs[k]!.math || runs[k]!.rtl) return -1;
    k++;
  }
  if (k >= runs.length) return -1;
  const style = leadStyle(runs[k]!);
  if (style === 'r' || style === 'x') return -1;
  for (let j = k + 1; j < runs.length; j++) if (leadStyle(runs[j]!) !== style && HAS_LETTER_RE.test(runs[j]!.text)) return j;
  return -1;
}

function buildLine(runs: Run[], block: number, plain = false): LayoutLine | null {
  let text = '';
  let prev: Run | undefined;
  const rtl = isRtlRow(runs);
  const threshold = runs.length > 1 ? wordGapThreshold(runs, rtl) : 0;
  const hasMath = !rtl && !plain && runs.some((r) => r.math);
  const spaces: boolean[] = [];
  const leadAt = rtl || runs.length < 2 ? -1 : leadEnd(runs);
  let leadRaw: string | null = null;
  for (let ri = 0; ri < runs.length; ri++) {
    const r = runs[ri]!;
    if (ri === leadAt) leadRaw = text;
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
  const lead = leadRaw !== null ? collapseWhitespace(leadRaw).trim() : '';
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
    ...(lead && lead.length < text.length && text.startsWith(lead) ? { lead } : {}),
  };
}
