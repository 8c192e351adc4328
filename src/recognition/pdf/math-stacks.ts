// Stacked fractions and radicals rebuilt as LaTeX (issue 17, ADR 0134). MuPDF's text layer (1.21) carries
// no drawings, so a fraction arrives as a numerator raised into the line of the formula, a denominator as
// a separate block below it, and a radical as a lone `√` glyph before its radicand: the horizontal rules
// that make them a fraction or a radical are missing. Pages whose math runs look stacked (or hold a `√`)
// are therefore traced once more (`mutool draw -F trace`) for their horizontal rules, and a rule with
// clear evidence around it replaces its parts by one run that carries `\frac{..}{..}` or `\sqrt{..}`:
//   * fraction: runs entirely within the rule's width, centred above it (numerator) and below it
//     (denominator), each side on one row, the wider side filling the rule, every part set in a math font
//     or made of digits and operators (at least one math-font run), nothing else crossing the rule;
//   * radical: a run that is only `√` in a math font ending where the rule starts, the rule inside its
//     box, and below the rule a radicand on one row made of the same kind of runs, nothing above it.
// Anything less clear (a run claimed by two rules, a nested fraction, text crossing the rule) leaves the
// page as it was: a wrong formula is worse than plain text.
import { mathLine, texOf, type MathRun } from '../structure/math-latex.js';

/** A horizontal rule drawn on the page: from x0 to x1 at height y (top-down page coordinates). */
export interface HRule {
  readonly x0: number;
  readonly x1: number;
  readonly y: number;
}

interface Bbox {
  x: number;
  y: number;
  w: number;
  h: number;
}
/** The parts of MuPDF's stext JSON this pass reads and writes (a run is a `line` of a block). */
export interface StackLine {
  bbox?: Bbox;
  font?: { name?: string; size?: number };
  x?: number;
  y?: number;
  text?: string;
  wmode?: number;
  /** LaTeX of a rebuilt fraction or radical (set by this pass only). */
  latex?: string;
}
export interface StackBlock {
  type?: string;
  /** Its lines get no LaTeX form: stacked math that could not be rebuilt (set by this pass only). */
  plain?: boolean;
  bbox?: Bbox;
  lines?: StackLine[];
}
export interface StackPage {
  blocks?: StackBlock[];
}

const MATH_FONT = (name: string | undefined, isMath: (n: string) => boolean): boolean => isMath(name ?? '');
/** Text of a part that is not in a math font but belongs to a formula: digits, operators, brackets. */
const OPERATOR_TEXT_RE = /^[\s\d.,;:=+\-−×·/<>≤≥≠()[\]|!'′*]*$/;

interface Item {
  block: number;
  index: number;
  line: StackLine;
  text: string;
  /** Box without the leading spaces MuPDF puts before a run (they sit on another baseline). */
  x0: number;
  x1: number;
  y0: number;
  y1: number;
  cy: number;
  size: number;
  math: boolean;
}

function itemsOf(page: StackPage, isMath: (n: string) => boolean): Item[] {
  const items: Item[] = [];
  (page.blocks ?? []).forEach((b, block) => {
    if (b.type !== 'text') return;
    (b.lines ?? []).forEach((line, index) => {
      const text = line.text ?? '';
      if (!line.bbox || line.wmode === 1 || !text.trim()) return;
      const { x, y, w, h } = line.bbox;
      const lead = text.length - text.trimStart().length;
      const x0 = x + (w * lead) / text.length;
      const size = line.font?.size && line.font.size > 0 ? line.font.size : h * 0.8;
      // A leading space on another baseline stretches the box: the glyphs are at the end away from the
      // space's baseline (`line.y`), one font size tall.
      let y0 = y;
      let y1 = y + h;
      if (lead > 0 && h > 1.3 * size && line.y !== undefined) {
        if (line.y >= y + h / 2) y1 = y0 + 1.05 * size;
        else y0 = y1 - 1.05 * size;
      }
      items.push({ block, index, line, text, x0, x1: x + w, y0, y1, cy: (y0 + y1) / 2, size, math: MATH_FONT(line.font?.name, isMath) });
    });
  });
  return items;
}

/**
 * Math runs that are superscript markers of the text they follow (affiliation and footnote marks such as
 * `Name^{α,∗}`): smaller than the text run they touch (no gap), raised above its baseline, or touching such a
 * marker. Two author lines' markers sit one above the other like a fraction's parts; they are not stacked
 * math, and tracing their page for rules costs a process for nothing.
 */
function attachedMarkers(items: readonly Item[]): Set<Item> {
  const markers = new Set<Item>();
  const raisedSmall = (m: Item, text: Item) =>
    m.size <= 0.8 * text.size && m.line.y !== undefined && text.line.y !== undefined && text.line.y - m.line.y >= 0.2 * text.size;
  const gap = (left: Item, right: Item, em: number) => right.x0 - left.x1 <= 0.15 * Math.max(em, 1) && right.x0 >= left.x0;
  // after a name (Name^{α}), and after such a marker (Name^{α,∗})
  for (let k = 1; k < items.length; k++) {
    const m = items[k]!;
    const prev = items[k - 1]!;
    if (!m.math || prev.block !== m.block) continue;
    if (markers.has(prev) ? gap(prev, m, prev.size) : !prev.math && gap(prev, m, prev.size) && raisedSmall(m, prev)) markers.add(m);
  }
  // before the text they mark (^{α}Allen Institute), and before such a marker
  for (let k = items.length - 2; k >= 0; k--) {
    const m = items[k]!;
    const next = items[k + 1]!;
    if (!m.math || next.block !== m.block || markers.has(m)) continue;
    if (markers.has(next) ? gap(m, next, next.size) : !next.math && gap(m, next, next.size) && raisedSmall(m, next)) markers.add(m);
  }
  return markers;
}

/** Whether a page's math runs look stacked (worth tracing for rules): a `√`, or two math runs one above the other. */
export function hasStackCandidate(page: StackPage, isMath: (n: string) => boolean): boolean {
  const all = itemsOf(page, isMath);
  const markers = attachedMarkers(all);
  const math = all.filter((i) => i.math && !markers.has(i));
  if (math.some((i) => i.text.includes('√'))) return true;
  // Any pair will do, so the runs are taken by height and each is paired only with those less than 2.5 of
  // the largest finite size below it (ADR 0357): a pair further apart, or with a size or centre that is not
  // a finite number, fails the test anyway.
  let maxEm = 1;
  for (const i of math) if (Number.isFinite(i.size) && i.size > maxEm) maxEm = i.size;
  const byHeight = math.filter((i) => Number.isFinite(i.cy)).sort((p, q) => p.cy - q.cy);
  for (let a = 0; a < byHeight.length; a++) {
    const p = byHeight[a]!;
    for (let b = a + 1; b < byHeight.length && byHeight[b]!.cy - p.cy < 2.5 * maxEm; b++) {
      const q = byHeight[b]!;
      const em = Math.max(p.size, q.size, 1);
      const dy = Math.abs(p.cy - q.cy);
      // Side by side within an em (a denominator is centred under its numerator, not under its first run).
      if (Math.max(p.x0, q.x0) - Math.min(p.x1, q.x1) < em && dy > 0.5 * em && dy < 2.5 * em) return true;
    }
  }
  return false;
}

/** Horizontal rules of a page from `mutool draw -F trace` output: stroked lines and thin filled rectangles. */
export function parseTraceRules(xml: string): HRule[] {
  const rules: HRule[] = [];
  const re = /<(stroke_path|fill_path)\b([^>]*)>([\s\S]*?)<\/\1>/g;
  for (let m = re.exec(xml); m; m = re.exec(xml)) {
    const attrs = m[2]!;
    const t = /transform="([^"]*)"/.exec(attrs)?.[1]?.trim().split(/\s+/).map(Number) ?? [1, 0, 0, 1, 0, 0];
    if (t.length !== 6 || t.some((v) => !Number.isFinite(v)) || t[1] !== 0 || t[2] !== 0) continue;
    const [a, , , d, e, f] = t as [number, number, number, number, number, number];
    const pts = [...m[3]!.matchAll(/<(moveto|lineto)\s+x="([^"]+)"\s+y="([^"]+)"\s*\/>/g)].map((p) => ({ x: a * Number(p[2]) + e, y: d * Number(p[3]) + f }));
    // Anything but straight segments (curves, closepath of other shapes) is not a rule.
    if (/<curveto|<rect/.test(m[3]!) && m[1] === 'stroke_path') continue;
    if (pts.length < 2 || pts.some((p) => !Number.isFinite(p.x) || !Number.isFinite(p.y))) continue;
    const xs = pts.map((p) => p.x);
    const ys = pts.map((p) => p.y);
    const x0 = Math.min(...xs);
    const x1 = Math.max(...xs);
    const y0 = Math.min(...ys);
    const y1 = Math.max(...ys);
    const width = m[1] === 'stroke_path' ? Number(/linewidth="([^"]*)"/.exec(attrs)?.[1] ?? '1') * Math.abs(d || 1) : 0;
    const thick = y1 - y0 + width;
    // A stroked rule is one segment, or (as dvipdfmx draws TeX's rules) several parallel hairlines over the
    // same span, each a moveto-lineto pair.
    const hairlines = pts.length % 2 === 0 && pts.every((p, k) => (k % 2 === 0 ? Math.abs(pts[k + 1]!.y - p.y) < 0.01 && Math.abs(Math.min(p.x, pts[k + 1]!.x) - x0) < 0.5 && Math.abs(Math.max(p.x, pts[k + 1]!.x) - x1) < 0.5 : true));
    if (x1 - x0 >= 2 && thick <= 1.5 && (m[1] === 'stroke_path' ? pts.length === 2 || hairlines : pts.length >= 4)) rules.push({ x0, x1, y: (y0 + y1) / 2 });
  }
  return rules;
}

interface Stack {
  rule: HRule;
  kind: 'frac' | 'sqrt';
  members: Item[];
  /** The `√` run a radical replaces. */
  sign?: Item;
  text: string;
  latex: string;
  size: number;
}

/** The full-size runs of a part share one row (its scripts, smaller, may sit above or below it). */
function oneRow(items: readonly Item[], em: number): boolean {
  const full = items.filter((i) => i.size > 0.85 * em);
  return full.length > 0 && Math.max(...full.map((i) => i.cy)) - Math.min(...full.map((i) => i.cy)) <= 0.6 * em;
}
const formulaParts = (items: readonly Item[]): boolean => items.every((i) => i.math || OPERATOR_TEXT_RE.test(i.text));

/** LaTeX and plain text of one row of parts (left to right), or null when it is not one formula. */
function partOf(items: readonly Item[]): { tex: string; text: string } | null {
  const sorted = [...items].sort((p, q) => p.x0 - q.x0);
  const base = Math.max(...sorted.map((i) => i.size));
  const runs: MathRun[] = sorted.map((i) => ({ text: i.text, size: i.size, y0: i.y0, y1: i.y1, math: i.math }));
  const spaces = sorted.map((i, k) => k > 0 && /^\s/.test(i.text));
  const text = sorted.map((i, k) => (k > 0 && /^\s/.test(i.text) ? ' ' : '') + i.text.trim()).join('');
  const line = runs.some((r) => r.math) ? mathLine(runs, spaces) : `$${sorted.map((i) => texOf(i.text.trim())).join(' ')}$`;
  const m = line ? /^\$([^$]+)\$$/.exec(line.trim()) : null;
  if (!m || base <= 0) return null;
  return { tex: m[1]!.trim(), text: text.trim() };
}

const group = (t: string): string => (/^[\p{L}\p{N}.]+$/u.test(t) ? t : `(${t})`);

/**
 * Runs crossing the rule's width within 1.6 ems above or below it (the em of the parts close to it), or
 * null when a smaller run (a script) lies in the band just beyond, up to 2.4 ems: a part would be cut off.
 * Full-size runs there are the next row (an alignment's next line), not part of this stack.
 */
function around(rule: HRule, items: readonly Item[], skip?: Item): Item[] | null {
  const over = items.filter((i) => i !== skip && Math.min(i.x1, rule.x1) - Math.max(i.x0, rule.x0) > 0 && Math.abs(i.cy - rule.y) <= 3 * i.size);
  if (over.length === 0) return [];
  // The parts' em: runs within their own size of the rule (a text-style fraction is set small, and the
  // running text of the next line must not widen its window).
  const close = over.filter((i) => Math.abs(i.cy - rule.y) <= i.size);
  const em = Math.max(...(close.length ? close : over).map((i) => i.size));
  const near = over.filter((i) => Math.abs(i.cy - rule.y) <= 1.6 * em);
  if (over.some((i) => !near.includes(i) && i.size <= 0.85 * em && Math.abs(i.cy - rule.y) <= 2.4 * em)) return null;
  return near;
}

/**
 * The runs a rule's tests look at, found without a scan of the whole page for every rule (ADR 0357): `band`
 * gives the runs whose centre lies within `reach` of a height, in page order (a superset of what any test
 * within that reach selects, so every test sees the runs it saw when it scanned them all); `roots` are the
 * math runs holding a `√`, in page order.
 */
interface RunIndex {
  readonly all: readonly Item[];
  readonly roots: readonly Item[];
  /** The largest run size on the page: no test reaches further than 3 of them from a rule. */
  readonly maxSize: number;
  band(y: number, reach: number): Item[];
}

function indexRuns(items: readonly Item[]): RunIndex {
  // A run without a finite centre passes no test of any rule (every test compares its distance).
  const order = items.map((_, k) => k).filter((k) => Number.isFinite(items[k]!.cy)).sort((a, b) => items[a]!.cy - items[b]!.cy);
  const cys = order.map((k) => items[k]!.cy);
  let maxSize = 0;
  for (const i of items) if (i.size > maxSize && Number.isFinite(i.size)) maxSize = i.size;
  return {
    all: items,
    roots: items.filter((i) => i.math && i.text.includes('√')),
    maxSize,
    band(y: number, reach: number): Item[] {
      let lo = 0;
      let hi = cys.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (cys[mid]! < y - reach) lo = mid + 1;
        else hi = mid;
      }
      const picked: number[] = [];
      for (let k = lo; k < cys.length && cys[k]! <= y + reach; k++) picked.push(order[k]!);
      return picked.sort((a, b) => a - b).map((k) => items[k]!);
    },
  };
}

/** The runs within three of the page's largest sizes of a rule (plus a margin): all any test of it reads. */
const bandOf = (rule: HRule, idx: RunIndex): Item[] => idx.band(rule.y, 3 * idx.maxSize + 1);

function fractionAt(rule: HRule, idx: RunIndex): Stack | null {
  // A rule starting where a `√` ends is a radical's bar, never a fraction's rule.
  if (idx.roots.some((i) => Math.abs(i.x1 - rule.x0) <= 1.5)) return null;
  const items = bandOf(rule, idx);
  const near = around(rule, items);
  if (!near || near.length === 0) return null;
  const inside = (i: Item): boolean => i.x0 >= rule.x0 - 1 && i.x1 <= rule.x1 + 1;
  // Nothing may cross the rule's ends (prose or a table row running through it).
  if (!near.every(inside)) return null;
  const num = near.filter((i) => i.cy < rule.y);
  const den = near.filter((i) => i.cy > rule.y);
  if (num.length === 0 || den.length === 0) return null;
  const em = Math.max(...near.map((i) => i.size));
  // Some part in a math font, or (`\frac{1}{2}`) a math-font run on the rule's row right beside it.
  const mathBeside = items.some((i) => i.math && Math.abs(i.cy - rule.y) <= 0.5 * Math.max(em, i.size) && i.x1 >= rule.x0 - 2 * em && i.x0 <= rule.x1 + 2 * em);
  if (![...num, ...den].some((i) => i.math) && !mathBeside) return null;
  if (!oneRow(num, em) || !oneRow(den, em) || !formulaParts(num) || !formulaParts(den)) return null;
  // TeX centres both parts over the rule, and the wider one spans it.
  const span = (p: Item[]): [number, number] => [Math.min(...p.map((i) => i.x0)), Math.max(...p.map((i) => i.x1))];
  const [n0, n1] = span(num);
  const [d0, d1] = span(den);
  const len = rule.x1 - rule.x0;
  if (Math.max(n1 - n0, d1 - d0) < 0.7 * len) return null;
  const centre = (rule.x0 + rule.x1) / 2;
  const tol = 0.3 * em + 0.15 * len;
  if (Math.abs((n0 + n1) / 2 - centre) > tol || Math.abs((d0 + d1) / 2 - centre) > tol) return null;
  const n = partOf(num);
  const d = partOf(den);
  if (!n || !d) return null;
  return { rule, kind: 'frac', members: [...num, ...den], text: `${group(n.text)}/${group(d.text)}`, latex: `\\frac{${n.tex}}{${d.tex}}`, size: em };
}

function radicalAt(rule: HRule, idx: RunIndex): Stack | null {
  const sign = idx.roots.find((i) => i.text.trim() === '√' && Math.abs(i.x1 - rule.x0) <= 1.5 && rule.y >= i.y0 - 1 && rule.y <= i.y1);
  if (!sign) return null;
  // Anything over the sign itself (the index of `\sqrt[3]{}`) is not rebuilt: the root's degree is unclear.
  if (idx.all.some((i) => i !== sign && Math.min(i.x1, sign.x1) - Math.max(i.x0, sign.x0) > 1 && i.cy < sign.y1 && i.cy > sign.y0 - sign.size)) return null;
  const near = around(rule, bandOf(rule, idx), sign);
  if (!near) return null;
  const inside = (i: Item): boolean => i.x0 >= rule.x0 - 1 && i.x1 <= rule.x1 + 1;
  if (near.length === 0 || !near.every(inside) || near.some((i) => i.cy < rule.y)) return null;
  const em = Math.max(...near.map((i) => i.size));
  if (!oneRow(near, em) || !formulaParts(near)) return null;
  const [r0, r1] = [Math.min(...near.map((i) => i.x0)), Math.max(...near.map((i) => i.x1))];
  // The overbar covers the radicand, no more and no less (a little room at its ends).
  if (r0 - rule.x0 > 0.5 * em || rule.x1 - r1 > 0.5 * em) return null;
  const r = partOf(near);
  if (!r) return null;
  return { rule, kind: 'sqrt', members: near, sign, text: `√${group(r.text)}`, latex: `\\sqrt{${r.tex}}`, size: em };
}

/**
 * Replaces each fraction and radical with clear evidence (see the file comment) by one run carrying its
 * LaTeX; returns the page unchanged (same object) when there is none. `isMath` tells math fonts by name.
 */
export function rebuildStacks(page: StackPage, rules: readonly HRule[], isMath: (n: string) => boolean): { page: StackPage; rebuilt: number; unresolved: number } {
  const items = itemsOf(page, isMath);
  const idx = indexRuns(items);
  const found = rules.map((r) => radicalAt(r, idx) ?? fractionAt(r, idx)).filter((s): s is Stack => s !== null);
  // A run claimed by two rules (nested or overlapping stacks) leaves all of them as they were.
  const claims = new Map<Item, number>();
  for (const s of found) for (const i of [...s.members, ...(s.sign ? [s.sign] : [])]) claims.set(i, (claims.get(i) ?? 0) + 1);
  // Another rule over or under a stack (a nested fraction, a radical in a fraction, stacked fractions)
  // makes its parts ambiguous: all such stacks stay as they were.
  // A much longer rule (a table's, eight times as long or more) running just above a line is not part of it.
  const len = (r: HRule): number => Math.max(r.x1 - r.x0, 0.1);
  const crowded = (s: Stack): boolean =>
    rules.some((r) => {
      if (r === s.rule || Math.min(r.x1, s.rule.x1) - Math.max(r.x0, s.rule.x0) <= 0) return false;
      // Any rule, however long, between the stack's parts (a table's rule between a cell and the line below).
      const top = Math.min(...s.members.map((i) => i.cy));
      const bottom = Math.max(...s.members.map((i) => i.cy));
      if (r.y > top && r.y < bottom) return true;
      return Math.abs(r.y - s.rule.y) < 1.8 * s.size && len(r) < 8 * len(s.rule);
    });
  const stacks = found.filter((s) => !crowded(s) && [...s.members, ...(s.sign ? [s.sign] : [])].every((i) => claims.get(i) === 1));
  // Stacked math around a rule that was not rebuilt (a nested fraction, a radical with unclear bar): the
  // blocks holding it lose their LaTeX form (`plain`), since their runs would read as wrong formulas
  // (`$$z =$$ ... $$w$$`); they stay text and the report counts them in EQUATIONS_AS_TEXT.
  const done = new Set(stacks.map((s) => s.rule));
  const plainBlocks = new Set<number>();
  let unresolved = 0;
  for (const r of rules) {
    if (done.has(r)) continue;
    const over = bandOf(r, idx).filter((i) => Math.min(i.x1, r.x1) - Math.max(i.x0, r.x0) > 0 && Math.abs(i.cy - r.y) <= 1.6 * i.size);
    const above = over.filter((i) => i.cy < r.y);
    const below = over.filter((i) => i.cy > r.y);
    const sign = idx.roots.find((i) => i.text.trim() === '√' && Math.abs(i.x1 - r.x0) <= 1.5);
    // Only formula parts (math fonts, digits, operators): a table's rule between rows of words is no stack.
    if (!((above.length && below.length) || sign) || !formulaParts(over)) continue;
    unresolved++;
    for (const i of over) plainBlocks.add(i.block);
    if (sign) plainBlocks.add(sign.block);
  }
  if (stacks.length === 0 && unresolved === 0) return { page, rebuilt: 0, unresolved: 0 };
  const drop = new Set<StackLine>();
  const parts = new Set(stacks.flatMap((s) => [...s.members, ...(s.sign ? [s.sign] : [])]));
  const insert = new Map<StackLine, StackLine[]>();
  for (const s of stacks) {
    for (const i of s.members) drop.add(i.line);
    const first = s.sign ?? [...s.members].sort((p, q) => p.block - q.block || p.index - q.index)[0]!;
    const font = (s.sign ?? s.members.find((i) => i.math) ?? s.members[0]!).line.font;
    const lead = s.sign && /^\s/.test(s.sign.text) ? ' ' : /^\s/.test(first.text) ? ' ' : '';
    // The run sits on the formula's baseline: a fraction's rule is on the math axis, a quarter em above it.
    const baseline = s.kind === 'frac' ? s.rule.y + 0.25 * s.size : Math.max(...s.members.map((i) => i.line.y ?? i.y1));
    const x0 = s.sign ? s.sign.x0 : s.rule.x0;
    const run: StackLine = {
      ...(font ? { font } : {}),
      bbox: { x: x0, y: baseline - 0.75 * s.size, w: s.rule.x1 - x0, h: s.size },
      x: x0,
      y: baseline,
      text: lead + s.text,
      latex: s.latex,
    };
    if (s.sign) drop.add(s.sign.line);
    // The rest of the formula's row in the other blocks the stack touched ("+ w" after a root, MuPDF's
    // block of the radicand) joins the new run's block, right after it, so the row reads as one line.
    const touched = new Set([...s.members, ...(s.sign ? [s.sign] : [])].map((i) => i.block));
    touched.delete(first.block);
    const rowMates = items.filter((i) => touched.has(i.block) && !parts.has(i) && !drop.has(i.line) && i.size > 0.85 * s.size && Math.abs(i.cy - (baseline - 0.25 * s.size)) <= 0.4 * s.size).sort((p, q) => p.x0 - q.x0);
    for (const i of rowMates) drop.add(i.line);
    insert.set(first.line, [run, ...rowMates.map((i) => i.line)]);
  }
  const blocks = (page.blocks ?? [])
    .map((b, k) => (b.type !== 'text' ? b : { ...b, ...(plainBlocks.has(k) ? { plain: true } : {}), lines: (b.lines ?? []).flatMap((l) => insert.get(l) ?? (drop.has(l) ? [] : [l])) }))
    .filter((b) => b.type !== 'text' || (b.lines ?? []).length > 0);
  return { page: { ...page, blocks }, rebuilt: stacks.length, unresolved };
}
