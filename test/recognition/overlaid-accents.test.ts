// Accents set over their letters as glyphs of their own (TeX's OT1 fonts map the grave accent to the ASCII
// backtick): composed with the letter by position, while a backtick with its own advance (code, quotes)
// stays (ADR 0374, accents). End to end on a PDF built here (mutool required) and on the rule itself.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { convertDocument } from '../../src/recognition/index.js';
import { accentsOverLetters, composeOverlaidAccents } from '../../src/recognition/pdf/glyph-spacing.js';
import { accentSuspect, applyOverlaidAccents, overlaidAccents } from '../../src/recognition/pdf/stext-xml.js';
import { buildPdf } from './helpers/pdf-builder.js';
import { needs, runner } from './helpers/tools.js';

const skip = await needs('mutool');

const prose = 'The quarterly figures were prepared by the finance team and reviewed by the board before release.';

test('a grave accent glyph kerned over its letter is composed; a backtick of code with its own advance stays', { skip }, async () => {
  // Helvetica: grave 333, a 556 thousandths of an em. As TeX's \accent sets it: a kern of 0.111 em to centre
  // the accent over the letter, the accent, then a kern back (positive TJ numbers move left) to the letter.
  const pdf = buildPdf([
    {
      runs: [
        { x: 72, y: 80, text: prose, size: 10 },
        { x: 72, y: 100, text: '', size: 11, glyphs: ['Universit', -111, '`', 444, 'a degli Studi di Torino'] },
        { x: 72, y: 120, text: 'Run `make all` in the folder, then quote `this and that` here.', size: 10 },
        { x: 72, y: 140, text: prose, size: 10 },
      ],
    },
  ]);
  const md = (await convertDocument(pdf, { runner })).markdown;
  assert.match(md, /Università degli Studi di Torino/);
  assert.match(md, /Run `make all` in the folder, then quote `this and that` here\./);
  assert.ok(md.includes(prose));
});

test('accentsOverLetters: an accent box over half of its letter, before or after it in visual order; none with its own advance', () => {
  // "t`a" as in the TeX Live document: the accent's advance box lies over the a's.
  const word = [
    { x0: 0, x1: 4, c: 't' },
    { x0: 4.0, x1: 12.1, c: '`' },
    { x0: 4.1, x1: 12, c: 'a' },
  ];
  assert.deepEqual([...accentsOverLetters(word)], [[1, { letter: 2, composed: 'à' }]]);
  assert.equal(composeOverlaidAccents(word).map((g) => g.c).join(''), 'tà');
  // A raised capital's accent sorted after its letter (centres nearly equal).
  const cap = [
    { x0: 0, x1: 8.4, c: 'T' },
    { x0: 8.4, x1: 17.2, c: 'A' },
    { x0: 9.9, x1: 15.7, c: '`' },
  ];
  assert.equal(composeOverlaidAccents(cap).map((g) => g.c).join(''), 'TÀ');
  // Code: the backtick, caret and tilde each have their own advance; the letter starts where they end.
  const code = [
    { x0: 0, x1: 3, c: '`' },
    { x0: 3, x1: 8, c: 'm' },
    { x0: 8, x1: 11, c: '^' },
    { x0: 11, x1: 16, c: 'e' },
    { x0: 16, x1: 19, c: '~' },
    { x0: 19.2, x1: 24, c: 'u' },
  ];
  assert.equal(accentsOverLetters(code).size, 0);
  // An accent over a letter that Unicode has no precomposed form for stays as it is.
  assert.equal(accentsOverLetters([{ x0: 0, x1: 5, c: '~' }, { x0: 0, x1: 5, c: 'q' }]).size, 0);
});

test('applyOverlaidAccents: JSON lines composed where the XML shows as many overlaid pairs, else left alone', () => {
  const xml = `<page id="p1"><block bbox="0 0 100 20"><line bbox="0 0 100 20" wmode="0"><font name="CMR10" size="10">
<char quad="0 0 4 0 0 10 4 10" x="0" y="8" color="#000000" c="t"/>
<char quad="4 0 12.1 0 4 10 12.1 10" x="4" y="8" color="#000000" c="\`"/>
<char quad="4.1 0 12 0 4.1 10 12 10" x="4.1" y="8" color="#000000" c="a"/>
</font></line></block></page>`;
  const acc = overlaidAccents(xml);
  assert.deepEqual(acc.map((a) => [a.raw, a.composed]), [['`a', 'à']]);
  const line = { text: 'Universit`a', mono: false, x0: 0, x1: 100, y0: 0, y1: 10 };
  assert.equal(applyOverlaidAccents([line], acc)[0]!.text, 'Universit\u00e0');
  // Two pairs in the line but one overlaid in the XML: the line is left as it is; so is a monospaced line.
  assert.equal(applyOverlaidAccents([{ ...line, text: '`a and `a' }], acc)[0]!.text, '`a and `a');
  assert.equal(applyOverlaidAccents([{ ...line, mono: true }], acc)[0]!.text, 'Universit`a');
  // Another line's band has none of the page's overlaid accents.
  assert.equal(applyOverlaidAccents([{ ...line, y0: 30, y1: 40 }], acc)[0]!.text, 'Universit`a');
  assert.equal(accentSuspect([line]), true);
  assert.equal(accentSuspect([{ ...line, text: 'run `make` here', mono: true }, { ...line, text: 'plain text' }]), false);
  // Spacing accents (a math hat in running text) are composed by text-repairs without the XML.
  assert.equal(accentSuspect([{ ...line, text: 'x\u02c6a and \u02c6e' }]), false);
});
