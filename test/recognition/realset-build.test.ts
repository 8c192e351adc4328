// The real development set's source parser (build.ts, ADR 0356): TeX accent and letter macros become the
// letters they typeset, so that a check's run of words is never cut at `est\'a` into "a escrito ...", which
// correct output fails; constructs that cannot be decoded drop the run instead of cutting it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checksFromTex, wordBag } from '../../bench/recognition/realset/build.js';
import { UNDECODED, decodeTexLetters, loadsGerman } from '../../bench/recognition/realset/tex-letters.js';

test('accent macros with and without braces become NFC letters', () => {
  const cases: [string, string][] = [
    [String.raw`est\'a escrito`, 'está escrito'],
    [String.raw`en qu\'e caso`, 'en qué caso'],
    [String.raw`\'{a} \`{e} \^{o} \"{u} \~{n} \={a} \.{z}`, 'á è ô ü ñ ā ż'],
    [String.raw`\' a \"u \~ n`, 'á ü ñ'],
    [String.raw`\u{g} \v{c} \v c \H{o} \c{c} \c c \k{a} \r{u} \d{h} \b{k}`, 'ğ č č ő ç ç ą ů ḥ ḵ'],
    [String.raw`Espa{\~n}a {\'E}l {\"O}l`, 'España Él Öl'],
    [String.raw`\'{\i}ndice \'\i ndice \^{\j}`, 'índice índice ĵ'],
  ];
  for (const [tex, want] of cases) {
    const got = decodeTexLetters(tex);
    assert.equal(got, want, tex);
    assert.equal(got, got.normalize('NFC'));
  }
});

test('letter macros become their letters, with the spaces TeX skips after a control word', () => {
  assert.equal(decodeTexLetters(String.raw`Stra\ss e und Stra\ss{}e`), 'Straße und Straße');
  assert.equal(decodeTexLetters(String.raw`{\o}re \O \ae{}ble {\AE} \oe uvre \aa{} \AA`), 'øre Øæble Æ œuvre å Å');
  assert.equal(decodeTexLetters(String.raw`Ko\l{}odziej \L{}\'od\'z`), 'Kołodziej Łódź');
  assert.equal(decodeTexLetters(String.raw`\'\o`), 'ǿ');
  // Other control words are left alone, \ss as the start of another macro's name too.
  assert.equal(decodeTexLetters(String.raw`\section{x} \ssmall \oldstylenums{1}`), String.raw`\section{x} \ssmall \oldstylenums{1}`);
});

test('a macro argument keeps its braces; \\verb and tabbing are left as they are; \\- and \\/ go', () => {
  assert.equal(decodeTexLetters(String.raw`\textbf{\'a}`), String.raw`\textbf{á}`);
  assert.equal(decodeTexLetters(String.raw`\verb|\'a| \'a`), String.raw`\verb|\'a| á`);
  const tabbing = String.raw`\begin{tabbing}a \= b \' c\\ \end{tabbing}`;
  assert.equal(decodeTexLetters(tabbing), tabbing);
  assert.equal(decodeTexLetters(String.raw`hyph\-en\-ation of\/ it \\ next`), String.raw`hyphenation of it \\ next`);
});

test('constructs that cannot be decoded poison the word they touch, or end the run standing alone', () => {
  assert.equal(decodeTexLetters(String.raw`\t{oo}x`), `${UNDECODED}x`);
  assert.equal(decodeTexLetters('sch"on'), `sch${UNDECODED}on`);
  assert.equal(decodeTexLetters(String.raw`a\'{}b`), `a${UNDECODED}b`);
  assert.equal(decodeTexLetters(String.raw`a \^{} b`), 'a  |  b');
});

const doc = (body: string) => String.raw`\documentclass{article}\begin{document}` + '\n' + body + '\n' + String.raw`\end{document}`;

test('checks from a source with accent macros hold the whole words, never a fragment after the macro', () => {
  const tex = doc(String.raw`Este documento est\'a escrito con acentos tradicionales de la lengua para ver en qu\'e forma sale.

\section{Introducci\'on}

Der Stra\ss enname wird hier mit dem alten Makro f\"ur den Buchstaben gesetzt.`);
  const bag = wordBag('Este documento está escrito con acentos tradicionales de la lengua para ver en qué forma sale. Introducción. Der Straßenname wird hier mit dem alten Makro für den Buchstaben gesetzt.');
  const checks = checksFromTex(tex, bag);
  const present = checks.filter((c) => c.kind === 'present').map((c) => (c.kind === 'present' ? c.text : ''));
  assert.deepEqual(present, [
    'Este documento está escrito con acentos tradicionales de la lengua para ver',
    'Der Straßenname wird hier mit dem alten Makro für den Buchstaben gesetzt',
  ]);
  assert.ok(checks.some((c) => c.kind === 'heading' && c.text === 'Introducción'));
  for (const p of present) assert.ok(!/^a escrito|Stra$|^enname/.test(p), p);
});

test('a run with a construct that cannot be decoded is dropped, not cut', () => {
  const tex = doc(String.raw`Wir finden das Ergebnis sch"on und sehr gut f\"ur alle Leute hier.

Ein ganz anderer Satz mit vielen einfachen Worten steht danach hier.`);
  const bag = wordBag('Wir finden das Ergebnis schön und sehr gut für alle Leute hier. Ein ganz anderer Satz mit vielen einfachen Worten steht danach hier.');
  const present = checksFromTex(tex, bag).flatMap((c) => (c.kind === 'present' ? [c.text] : []));
  assert.deepEqual(present, ['Ein ganz anderer Satz mit vielen einfachen Worten steht danach hier']);
});

test("German babel shorthands are decoded when German is the source's main language, and only then", () => {
  const german = { germanShorthands: true };
  assert.equal(decodeTexLetters(String.raw`f"ur das Projekt beigef"ugt Gr"u"se Schi"ffahrt Zucker"-b"acker "Ahnlich`, german), 'für das Projekt beigefügt Grüße Schiffahrt Zuckerbäcker Ähnlich');
  assert.equal(decodeTexLetters('"`Projekt"\' \\"a', german), '"`Projekt"\' ä');
  assert.equal(decodeTexLetters('f"ur'), `f${UNDECODED}ur`);
  assert.equal(loadsGerman(String.raw`\documentclass{dinbrief}\usepackage{ngerman}\begin{document}`), true);
  assert.equal(loadsGerman(String.raw`\documentclass{article}\usepackage[english,ngerman]{babel}\begin{document}`), true);
  assert.equal(loadsGerman(String.raw`\documentclass[ngerman]{article}\usepackage{babel}\begin{document}`), true);
  assert.equal(loadsGerman(String.raw`\documentclass{article}\usepackage[ngerman,english]{babel}\begin{document}`), false);
  assert.equal(loadsGerman(String.raw`\documentclass{article}\begin{document} \usepackage{ngerman}`), false);
});

test('a German letter keeps its runs when its source loads ngerman', () => {
  const tex = String.raw`\documentclass{dinbrief}\usepackage{ngerman}\begin{document}
anbei senden wir Ihnen unseren Antrag auf Sachbeihilfe f"ur das Projekt ` + '"`X"\' zu.\n\\end{document}';
  const bag = wordBag('anbei senden wir Ihnen unseren Antrag auf Sachbeihilfe für das Projekt X zu.');
  const present = checksFromTex(tex, bag).flatMap((c) => (c.kind === 'present' ? [c.text] : []));
  assert.deepEqual(present, ['anbei senden wir Ihnen unseren Antrag auf Sachbeihilfe für das Projekt']);
});
