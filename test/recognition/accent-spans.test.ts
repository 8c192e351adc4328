// Accents drawn as glyphs of their own in a span of their own (ADR 0380): a LaTeX class setting Portuguese in
// NimbusSanL draws "agr", then the circumflex at a size a hair off the letters' (MuPDF opens a new font span),
// then "onomo", moving the accent back over the "o"; "produção" comes as "produc¸ ˜" + "ao". MuPDF's JSON
// keeps drawing order ("agronomoˆ"); the page is read again from the XML, where the accent joins the span
// whose letter it is set over and is composed with it. Spans built like the real file's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseStextXml, strayAccentSuspect } from '../../src/recognition/pdf/stext-xml.js';

type G = readonly [c: string, x0: number, x1: number];
const esc = (c: string): string => (c === '"' ? '&quot;' : c === '&' ? '&amp;' : c === '<' ? '&lt;' : c);
const span = (size: number, glyphs: readonly G[]): string =>
  `<font name="NimbusSanL-Regu" size="${size}">\n${glyphs.map(([c, x0, x1]) => `<char quad="${x0} 496.7 ${x1} 496.7 ${x0} 511.5 ${x1} 511.5" x="${x0}" y="508.15" color="#000000" c="${esc(c)}"/>`).join('\n')}\n</font>`;
const page = (...spans: string[]): string => `<page id="page1" width="595" height="842">\n<block bbox="100 496 560 512">\n<line bbox="100 496.5 560 511.5" wmode="0" dir="1 0">\n${spans.join('\n')}\n</line>\n</block>\n</page>`;
const texts = (xml: string): string[] => (parseStextXml(xml)[0]!.blocks as { lines: { text: string }[] }[]).flatMap((b) => b.lines.map((l) => l.text));

/** Letters of a word from x, each `w` wide. */
const word = (s: string, x: number, w = 6.78): G[] => [...s].map((c, i) => [c, x + i * w, x + (i + 1) * w] as const);

test('a circumflex in a span of its own, set over the "o" of the next span, is composed with it: "agrônomo"', () => {
  const xml = page(span(12.07, word('agr', 483.8)), span(11.96, [['\u02c6', 502.6, 506.6]]), span(12.07, word('onomo', 501.3)));
  assert.deepEqual(texts(xml).filter(Boolean), ['agr', 'ônomo']);
});

test('"produc¸ ˜" + "ao": the tilde joins the "a" it is set over and MuPDF\'s space between cedilla and tilde goes with it', () => {
  const xml = page(span(9.96, [...word('produc', 236.1, 5.5), ['\u00b8', 269.9, 273.2], [' ', 273.2, 275.2], ['\u02dc', 275.2, 278.5]]), span(10.06, word('ao', 274.05, 5.65)));
  const t = texts(xml);
  assert.equal(t.join(''), 'produc¸ão'.normalize('NFC'), JSON.stringify(t));
});

test('a grave over the "a" of the next span after a real word space keeps the space: "apresentada à"', () => {
  const xml = page(span(12.07, word('apresentada', 300, 7.6)), span(11.96, [[' ', 383.6, 393.5], ['`', 393.5, 397.5]]), span(12.07, word('a', 392.2)));
  assert.equal(texts(xml).join(''), 'apresentada à');
});

test('the stray accents of MuPDF\'s JSON text mark the page for a second reading; accents before their letter and code do not', () => {
  const line = (text: string, mono = false) => ({ text, mono });
  assert.ok(strayAccentSuspect([line('Engenheiro agronomoˆ')]));
  assert.ok(strayAccentSuspect([line('Ciencias Agrarias e Veterin´ arias')]));
  assert.ok(strayAccentSuspect([line('Estimativa da produc¸ ˜ao de citros')]));
  assert.ok(!strayAccentSuspect([line('Ciˆencias Agr´arias')]));
  assert.ok(!strayAccentSuspect([line('x ˆ y in a listing', true)]));
});
