// Parses DjVuLibre outputs: `djvudump` (page sizes, resolutions, hidden-text chunks) and `djvused
// print-txt` S-expressions (DjVu hidden text: page > column > region > para > line > word, coordinates in
// pixels with the origin at the bottom left; djvused(1) "print-txt"). Strings use C escapes with octal
// UTF-8 bytes.
import type { LayoutLine } from '../layout-model.js';

/** One page as described by djvudump. */
export interface DjvuPageInfo {
  readonly width: number;
  readonly height: number;
  readonly dpi: number;
  /** The page has a TXTz or TXTa (hidden text) chunk. */
  readonly hasText: boolean;
}

/** Parses `djvudump FILE`: one entry per `FORM:DJVU` page in document order. */
export function parseDjvudump(text: string): DjvuPageInfo[] {
  const pages: { width: number; height: number; dpi: number; hasText: boolean }[] = [];
  let cur: { width: number; height: number; dpi: number; hasText: boolean } | null = null;
  for (const line of text.split('\n')) {
    if (/FORM:DJVU\b/.test(line)) {
      cur = { width: 0, height: 0, dpi: 300, hasText: false };
      pages.push(cur);
      continue;
    }
    if (/FORM:DJVI\b|FORM:THUM\b/.test(line)) {
      cur = null;
      continue;
    }
    if (!cur) continue;
    const info = /INFO \[\d+\]\s+DjVu (\d+)x(\d+),.*?(\d+) dpi/.exec(line);
    if (info) {
      cur.width = Number(info[1]);
      cur.height = Number(info[2]);
      cur.dpi = Number(info[3]) || 300;
    }
    if (/\bTXT[za]\b/.test(line)) cur.hasText = true;
  }
  return pages;
}

type SExpr = string | SExpr[];

/** Parses a sequence of S-expressions. */
export function parseSExprs(src: string): SExpr[] {
  const out: SExpr[] = [];
  const stack: SExpr[][] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i]!;
    if (c === '(') {
      stack.push([]);
      i++;
    } else if (c === ')') {
      const done = stack.pop();
      if (done) (stack.length ? stack[stack.length - 1]! : out).push(done);
      i++;
    } else if (c === '"') {
      const bytes: number[] = [];
      i++;
      while (i < src.length && src[i] !== '"') {
        if (src[i] === '\\') {
          const n = src[i + 1] ?? '';
          const oct = /^[0-7]{1,3}/.exec(src.slice(i + 1, i + 4));
          if (oct) {
            bytes.push(parseInt(oct[0], 8) & 0xff);
            i += 1 + oct[0].length;
            continue;
          }
          const map: Record<string, number> = { n: 10, t: 9, r: 13, '"': 34, '\\': 92, b: 8, f: 12, v: 11, a: 7 };
          bytes.push(map[n] ?? n.charCodeAt(0));
          i += 2;
          continue;
        }
        for (const b of Buffer.from(src[i]!, 'utf8')) bytes.push(b);
        i++;
      }
      i++;
      const s = Buffer.from(bytes).toString('utf8');
      (stack.length ? stack[stack.length - 1]! : out).push(s);
    } else if (/\s/.test(c)) i++;
    else {
      let j = i;
      while (j < src.length && !/[\s()"]/.test(src[j]!)) j++;
      (stack.length ? stack[stack.length - 1]! : out).push(src.slice(i, j));
      i = j;
    }
  }
  return out;
}

/**
 * Lines of one page's hidden text, in points (y down). `height` is the page height in pixels, `dpi` its
 * resolution. Paragraphs (or regions, or columns) become blocks; when the text has only lines, all lines
 * share one block and the layout pass splits paragraphs by gaps and indents.
 */
export function djvuTextLines(expr: SExpr, height: number, dpi: number): LayoutLine[] {
  const scale = 72 / dpi;
  const lines: LayoutLine[] = [];
  let block = 0;
  const words = (node: SExpr[]): { x0: number; y0: number; x1: number; y1: number; text: string }[] => {
    const out: { x0: number; y0: number; x1: number; y1: number; text: string }[] = [];
    const visit = (n: SExpr[]): void => {
      if (n[0] === 'word' || n[0] === 'char') {
        const [x0, y0, x1, y1] = n.slice(1, 5).map(Number) as [number, number, number, number];
        const text = typeof n[5] === 'string' ? n[5] : '';
        if (text.trim()) out.push({ x0, y0, x1, y1, text: text.trim() });
      } else for (const c of n.slice(5)) if (Array.isArray(c)) visit(c);
    };
    visit(node);
    return out;
  };
  const addLine = (n: SExpr[]): void => {
    const [x0, y0, x1, y1] = n.slice(1, 5).map(Number) as [number, number, number, number];
    const ws = words(n);
    const direct = n.slice(5).filter((c): c is string => typeof c === 'string').join(' ').trim();
    const text = ws.length ? ws.map((w) => w.text).join(' ') : direct;
    if (!text) return;
    // The tallest word spans ascender to descender (about 1.1 em); the median jitters with the letters.
    const tallest = Math.max(...(ws.length ? ws.map((w) => w.y1 - w.y0) : [y1 - y0]));
    lines.push({
      text,
      x0: x0 * scale,
      y0: (height - y1) * scale,
      x1: x1 * scale,
      y1: (height - y0) * scale,
      size: Math.round((tallest * scale) / 1.1),
      bold: false,
      italic: false,
      mono: false,
      sizeEstimated: true,
      block,
    });
  };
  const walk = (n: SExpr): void => {
    if (!Array.isArray(n)) return;
    const kind = n[0];
    if (kind === 'line') {
      addLine(n);
      return;
    }
    if (kind === 'para' || kind === 'region' || kind === 'column') {
      const hasInner = n.slice(5).some((c) => Array.isArray(c) && (c[0] === 'para' || c[0] === 'region'));
      for (const c of n.slice(5)) walk(c);
      if (!hasInner) block++;
      return;
    }
    if (kind === 'page') {
      const children = n.slice(5);
      if (children.every((c) => typeof c === 'string')) {
        // Page-level text only: no geometry below the page; one line per text line.
        const [, , , , h] = n.slice(0, 5).map(Number);
        let y = 0;
        for (const t of children.join('\n').split('\n')) {
          if (t.trim()) lines.push({ text: t.trim(), x0: 0, y0: y, x1: 100, y1: y + 12, size: 10, bold: false, italic: false, mono: false, block });
          y += 14;
        }
        void h;
        return;
      }
      for (const c of children) walk(c);
      return;
    }
    for (const c of n.slice(5)) walk(c);
  };
  walk(expr);
  return lines;
}
