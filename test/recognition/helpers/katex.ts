// Every formula a test sees the converter emit must render: KaTeX (a development dependency) parses it as
// a reader's Markdown renderer would (issue 28: equations rendered back), with
// `katex.renderToString(src, { displayMode: true, throwOnError: true, strict: 'ignore' })`.
import assert from 'node:assert/strict';
import { markdownMath, texError } from '../../../bench/recognition/realset/render.js';

/** Fails with KaTeX's parse error when `tex` does not render (as a display, or inline). */
export function assertRenders(tex: string, display = true): string {
  const err = texError(tex, display);
  assert.equal(err, null, `KaTeX does not render ${display ? '$$' : '$'}${tex}${display ? '$$' : '$'}: ${err}`);
  return tex;
}

/** Fails unless every `$$...$$` display and `$...$` formula of a Markdown text renders; returns their count. */
export function assertMathRenders(markdown: string): number {
  const all = markdownMath(markdown);
  for (const m of all) assertRenders(m.tex, m.display);
  return all.length;
}
