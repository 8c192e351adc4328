// Equations rendered back (issue 28: "rendered back (KaTeX or MathJax from npm) and compared with the
// source"): KaTeX, a development dependency only (tests and benches; the service never loads it), parses a
// display as a reader's Markdown renderer would, and its MathML is the rendered form the benchmark compares.
import katex from 'katex';

const OPTIONS = { displayMode: true, throwOnError: true, strict: 'ignore' as const };

/** KaTeX's HTML for one display; throws KaTeX's ParseError when the LaTeX does not parse. */
export function renderTex(src: string, displayMode = true): string {
  return katex.renderToString(src, { ...OPTIONS, displayMode });
}

/** The parse error of a display, or null when KaTeX renders it. */
export function texError(src: string, displayMode = true): string | null {
  try {
    renderTex(src, displayMode);
    return null;
  } catch (e) {
    return (e as Error).message;
  }
}

/**
 * The displays (`$$...$$`) and inline formulas (`$...$`) of a Markdown text, each with its mode, read as a
 * Markdown renderer with math reads them (remark-math, markdown-it's math plugins; ADR 0355): nothing inside
 * a fenced code block; a backslash escape (`\$`) is a literal dollar, no delimiter; a run of one dollar
 * opens an inline formula and a run of two a display, closed by the next run of as many dollars (a run of
 * another length inside does not close it: `$a$$b$` is one formula `a$$b`, as renderers read it), never
 * across a blank line; inside a formula a backslash takes the next character with it (TeX's `\$`, `\\`).
 * A run without its closing run is text.
 */
export function markdownMath(md: string): { tex: string; display: boolean; start: number; end: number }[] {
  const out: { tex: string; display: boolean; start: number; end: number }[] = [];
  // Fenced code blocks (``` or ~~~, closed by a fence of the same character at least as long) are blanked
  // (offsets kept).
  const lines = md.split('\n');
  let fence: string | null = null;
  for (let i = 0; i < lines.length; i++) {
    const f = /^ {0,3}(`{3,}|~{3,})/.exec(lines[i]!);
    if (fence === null) {
      if (f) {
        fence = f[1]!;
        lines[i] = ' '.repeat(lines[i]!.length);
      }
    } else {
      if (f && f[1]![0] === fence[0] && f[1]!.length >= fence.length && /^ {0,3}[`~]+\s*$/.test(lines[i]!)) fence = null;
      lines[i] = ' '.repeat(lines[i]!.length);
    }
  }
  const text = lines.join('\n');
  const runAt = (i: number): number => {
    let n = 0;
    while (text[i + n] === '$') n++;
    return n;
  };
  let i = 0;
  while (i < text.length) {
    const ch = text[i]!;
    if (ch === '\\') {
      i += 2;
      continue;
    }
    if (ch !== '$') {
      i++;
      continue;
    }
    const n = runAt(i);
    let j = i + n;
    let close = -1;
    while (j < text.length && n <= 2) {
      const c = text[j]!;
      if (c === '\\') {
        j += 2;
        continue;
      }
      if (c === '\n' && /^[ \t]*\n/.test(text.slice(j + 1, j + 40))) break;
      if (c === '$') {
        const m = runAt(j);
        if (m === n) {
          close = j;
          break;
        }
        j += m;
        continue;
      }
      j++;
    }
    if (close < 0 || close === i + n) {
      i += n;
      continue;
    }
    out.push({ tex: text.slice(i + n, close), display: n === 2, start: i, end: close + n });
    i = close + n;
  }
  return out;
}

/**
 * The rendered form of a display as a token sequence, or null when it does not parse: KaTeX's MathML with
 * the source annotation removed (it repeats the LaTeX), each element a token by name (mi, mo, mfrac, msub,
 * mtable, ...) and each leaf's text a token of its own; grouping rows (mrow), spaces and the element
 * attributes are dropped, so two spellings that render alike (`x_i^2`, `x^{2}_{i}`, `\dfrac`/`\frac` aside)
 * give the same sequence. An equation number (`\tag{..}`) is left out: sources number by counters.
 */
export function renderedTokens(src: string): string[] | null {
  let mathml: string;
  try {
    mathml = katex.renderToString(src.replace(/\\tag\*?\{[^{}]*\}/g, ''), { ...OPTIONS, output: 'mathml' });
  } catch {
    return null;
  }
  mathml = mathml.replace(/<annotation[\s\S]*?<\/annotation>/g, '');
  const tokens: string[] = [];
  for (const m of mathml.matchAll(/<(\/?)([a-z]+)[^>]*?(\/?)>|([^<]+)/g)) {
    if (m[4] !== undefined) {
      const text = m[4].replace(/&amp;/g, '&').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#x27;/g, "'").replace(/\s+/g, '');
      // A leaf's text one character a token: `<mi>sin</mi>` and `<mi>s</mi><mi>i</mi><mi>n</mi>` stay close.
      for (const ch of text) tokens.push(ch);
      continue;
    }
    const name = m[2]!;
    if (['span', 'math', 'semantics', 'mrow', 'mspace', 'mstyle', 'mpadded', 'annotation'].includes(name)) continue;
    if (m[1]) {
      if (!['mi', 'mo', 'mn', 'mtext', 'ms'].includes(name)) tokens.push(`/${name}`); // a leaf's end says nothing
    } else tokens.push(`<${name}>`);
    if (m[3]) tokens.push(`/${name}`);
  }
  return tokens;
}

/**
 * A source equation as a KaTeX display: labels and numbering switches dropped; the body of a multi-row
 * environment (align, eqnarray, gather: `&` and `\\` at its top level) set in `aligned` (or `gathered`
 * without `&`), as the environment itself would render it.
 */
export function sourceDisplay(tex: string): string {
  const s = tex.replace(/\\label\s*\{[^{}]*\}/g, ' ').replace(/\\(?:nonumber|notag)\b/g, ' ').trim();
  const top = s.replace(/\\begin\{([a-zA-Z*]+)\}[\s\S]*?\\end\{\1\}/g, ' ');
  if (!/\\\\|(?<!\\)&/.test(top)) return s;
  return /(?<!\\)&/.test(top) ? `\\begin{aligned} ${s} \\end{aligned}` : `\\begin{gathered} ${s} \\end{gathered}`;
}
