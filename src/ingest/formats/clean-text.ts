// Clean titles and abstracts (issue 13, docs/works.md "Clean titles"): publishers' metadata carries
// HTML and MathML inside titles and abstracts (`CO<sub>2</sub>`, `<i>N</i>-acetyl`, `<scp>DNA</scp>`,
// `<mml:math>…<mml:mi>Q</mml:mi>…</mml:math>-Gaussian`, JATS `<jats:p>`). At ingest they become text:
// sub- and superscripts as the Unicode characters where every character has one (CO₂, Fe³⁺, Bi₁₋ₓ),
// else the plain characters (P450cam); MathML as its linear text (x₁, a/b, √x); entities decoded.
// Search, snippets and display all read the cleaned text, so a query for "CO2" and a reader see the
// same thing. The markup is parsed with node-html-parser (no regular-expression rewriting of tags).
import { parse, type Node as HtmlNode, type HTMLElement } from 'node-html-parser';

const SUPERSCRIPT: Readonly<Record<string, string>> = {
  '0': '⁰', '1': '¹', '2': '²', '3': '³', '4': '⁴', '5': '⁵', '6': '⁶', '7': '⁷', '8': '⁸', '9': '⁹',
  '+': '⁺', '-': '⁻', '−': '⁻', '–': '⁻', '=': '⁼', '(': '⁽', ')': '⁾',
  a: 'ᵃ', b: 'ᵇ', c: 'ᶜ', d: 'ᵈ', e: 'ᵉ', f: 'ᶠ', g: 'ᵍ', h: 'ʰ', i: 'ⁱ', j: 'ʲ', k: 'ᵏ', l: 'ˡ', m: 'ᵐ',
  n: 'ⁿ', o: 'ᵒ', p: 'ᵖ', r: 'ʳ', s: 'ˢ', t: 'ᵗ', u: 'ᵘ', v: 'ᵛ', w: 'ʷ', x: 'ˣ', y: 'ʸ', z: 'ᶻ',
};
const SUBSCRIPT: Readonly<Record<string, string>> = {
  '0': '₀', '1': '₁', '2': '₂', '3': '₃', '4': '₄', '5': '₅', '6': '₆', '7': '₇', '8': '₈', '9': '₉',
  '+': '₊', '-': '₋', '−': '₋', '–': '₋', '=': '₌', '(': '₍', ')': '₎',
  a: 'ₐ', e: 'ₑ', h: 'ₕ', i: 'ᵢ', j: 'ⱼ', k: 'ₖ', l: 'ₗ', m: 'ₘ', n: 'ₙ', o: 'ₒ', p: 'ₚ', r: 'ᵣ', s: 'ₛ',
  t: 'ₜ', u: 'ᵤ', v: 'ᵥ', x: 'ₓ',
};

/** `text` in Unicode sub/superscript characters when every character has one, else unchanged. */
export function scriptForm(text: string, map: Readonly<Record<string, string>>): string {
  const chars = [...text.trim()];
  return chars.length > 0 && chars.every((c) => map[c] !== undefined) ? chars.map((c) => map[c]).join('') : text.trim();
}

// Tags that make a string markup rather than text with a stray "<" (p < 0.05): inline HTML that
// publishers use in titles, MathML, JATS.
const MARKUP = /<\/?(?:sub|sup|inf|i|b|em|strong|u|scp|sc|small|span|font|tt|br|p|div|a|mml:[a-z]+|math|m[a-z]+|jats:[a-z-]+)\b[^<>]*>/i;
const ENTITY = /&(?:#\d{1,7}|#x[0-9a-f]{1,6}|[a-z][a-z0-9]{1,31});/i;

const BLOCK = new Set(['p', 'div', 'br', 'li', 'sec', 'list-item', 'title']);

const localName = (el: HTMLElement): string => (el.rawTagName ?? '').toLowerCase().replace(/^(?:mml|m|jats):/, '');

/** The text of a node (element names without their mml:/jats: prefix); block elements give paragraph breaks. */
function render(node: HtmlNode, paragraphs: boolean): string {
  if (node.nodeType === 3) return node.text;
  if (node.nodeType !== 1) return '';
  const el = node as HTMLElement;
  const tag = localName(el);
  const kids = (nodes: readonly HtmlNode[] = el.childNodes) => nodes.map((c) => render(c, paragraphs)).join('');
  const elements = el.childNodes.filter((c): c is HTMLElement => c.nodeType === 1);
  switch (tag) {
    case 'sup':
      return scriptForm(kids(), SUPERSCRIPT);
    case 'sub':
    case 'inf':
      return scriptForm(kids(), SUBSCRIPT);
    // MathML presentation elements (https://www.w3.org/TR/mathml-core/).
    case 'msup':
      return render(elements[0]!, paragraphs) + scriptForm(elements[1] ? render(elements[1], paragraphs) : '', SUPERSCRIPT);
    case 'msub':
      return render(elements[0]!, paragraphs) + scriptForm(elements[1] ? render(elements[1], paragraphs) : '', SUBSCRIPT);
    case 'msubsup':
      return (
        render(elements[0]!, paragraphs) +
        scriptForm(elements[1] ? render(elements[1], paragraphs) : '', SUBSCRIPT) +
        scriptForm(elements[2] ? render(elements[2], paragraphs) : '', SUPERSCRIPT)
      );
    case 'mfrac':
      return elements.length === 2 ? `${render(elements[0]!, paragraphs)}/${render(elements[1]!, paragraphs)}` : kids();
    case 'msqrt':
      return `√${kids()}`;
    case 'semantics':
      return elements[0] ? render(elements[0], paragraphs) : '';
    case 'annotation':
    case 'annotation-xml':
      return '';
    default:
      if (elements.length === 0 && el.childNodes.length === 0 && tag === 'br') return paragraphs ? '\n\n' : ' ';
      if (BLOCK.has(tag)) return paragraphs ? `\n\n${kids()}\n\n` : ` ${kids()} `;
      return kids();
  }
}

/** Collapses white space; with `paragraphs`, keeps paragraph breaks as one blank line. */
function tidy(text: string, paragraphs: boolean): string {
  if (!paragraphs) return text.replace(/\s+/g, ' ').trim();
  return text
    .split(/\n\s*\n/)
    .map((p) => p.replace(/\s+/g, ' ').trim())
    .filter((p) => p !== '')
    .join('\n\n');
}

/**
 * Source title or abstract markup to text (see the file comment). Text without markup or entities is
 * returned as it is (no white-space changes), so plain records ingest unchanged.
 */
export function cleanMarkup(text: string, options: { paragraphs?: boolean } = {}): string {
  if (!MARKUP.test(text) && !ENTITY.test(text)) return text;
  const once = cleanOnce(text, options.paragraphs ?? false);
  // Some sources escape the markup once more (`BaTiO&lt;sub&gt;3&lt;/sub&gt;`): decoding the entities
  // reveals tags, which a second pass turns into text. Never more than two passes.
  return MARKUP.test(once) ? cleanOnce(once, options.paragraphs ?? false) : once;
}

function cleanOnce(text: string, paragraphs: boolean): string {
  // A space before a sub/superscript belongs to the layout, not the formula: "CO <sub>2</sub>" is CO₂.
  const compact = text.replace(/[ \t]+(?=<(?:sub|sup|inf)\b)/gi, '');
  const root = parse(compact, { comment: false, blockTextElements: { script: false, style: false, pre: true } });
  return tidy(render(root, paragraphs), paragraphs);
}

/** cleanMarkup for a nullable field. */
export const cleanNullable = (text: string | null, options: { paragraphs?: boolean } = {}): string | null => (text === null ? null : cleanMarkup(text, options));
