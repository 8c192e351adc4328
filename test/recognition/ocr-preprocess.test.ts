// OCR preparation of scanned pages (ADR 0365): skew found and undone, and the document's OCR language
// chosen from its own first OCR text.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { deskew, estimateSkew, otsuThreshold, reduceGray, rotateSmall } from '../../src/recognition/ocr/deskew.js';
import type { GrayImage } from '../../src/recognition/ocr/pgm.js';
import { OcrLanguageChoice, languagesFor, parseListLangs, textLanguage } from '../../src/recognition/ocr/ocr-language.js';
import { recognizePageInLanguage } from '../../src/recognition/ocr/ocr-engine.js';
import { encodePgm } from '../../src/recognition/ocr/pgm.js';
import type { ToolResult, ToolRun, Workspace } from '../../src/ports/process-runner.js';

/**
 * A page of "text": rows of dark dashes (words) with white leading between them, turned by `skew`
 * degrees clockwise (lines falling to the right), on white paper.
 */
function textPage(width: number, height: number, skew: number): GrayImage {
  const data = new Uint8Array(width * height).fill(245);
  const tan = Math.tan((skew * Math.PI) / 180);
  const cx = width / 2;
  for (let base = 60; base < height - 60; base += 24) {
    for (let x = 50; x < width - 50; x++) {
      // Words of 40 px with 12 px spaces; letters 10 px high above the baseline.
      if ((x - 50) % 52 >= 40) continue;
      const y1 = Math.round(base + (x - cx) * tan);
      for (let y = y1 - 10; y <= y1; y++) if (y >= 0 && y < height && (x + y) % 3 !== 0) data[y * width + x] = 20;
    }
  }
  return { width, height, data };
}

test('Otsu threshold separates two levels', () => {
  const data = new Uint8Array(1000).fill(230);
  data.fill(30, 0, 200);
  const t = otsuThreshold(data);
  assert.ok(t >= 30 && t < 230, `threshold ${t}`);
});

test('skew of a text page is found to a tenth of a degree, either way', () => {
  for (const skew of [2, -3, 1.2, -0.6, 0]) {
    const e = estimateSkew(textPage(800, 1000, skew));
    assert.ok(Math.abs(e.degrees - skew) <= 0.1, `skew ${skew}: estimated ${e.degrees}`);
    if (skew !== 0) assert.ok(e.gain > 1.2, `gain ${e.gain}`);
  }
});

test('deskew straightens a skewed page and leaves straight, blank and dark pages alone', () => {
  const skewed = textPage(800, 1000, 2.5);
  const d = deskew(skewed);
  assert.ok(Math.abs(d.degrees + 2.5) <= 0.1, `turned by ${d.degrees}`);
  assert.equal(d.image.width, 800);
  assert.equal(d.image.height, 1000);
  // Straightened, the page's lines are level again.
  assert.ok(Math.abs(estimateSkew(d.image).degrees) <= 0.1);
  const straight = textPage(800, 1000, 0.1);
  assert.equal(deskew(straight).image, straight);
  const blank: GrayImage = { width: 300, height: 400, data: new Uint8Array(300 * 400).fill(250) };
  assert.equal(deskew(blank).degrees, 0);
  const dark: GrayImage = { width: 300, height: 400, data: new Uint8Array(300 * 400).map((_, i) => (i % 7 === 0 ? 200 : 10)) };
  assert.equal(deskew(dark).degrees, 0);
});

test('small rotation: 0 degrees is the identity, a turn moves a dot the right way, outside is white', () => {
  const img: GrayImage = { width: 101, height: 101, data: new Uint8Array(101 * 101).fill(255) };
  img.data[50 * 101 + 90] = 0; // a dot 40 px right of the centre
  assert.deepEqual([...rotateSmall(img, 0).data], [...img.data]);
  // Clockwise on screen (y down): a dot right of the centre moves down.
  const r = rotateSmall(img, 10);
  let best = { v: 256, x: 0, y: 0 };
  for (let y = 0; y < 101; y++) for (let x = 0; x < 101; x++) if (r.data[y * 101 + x]! < best.v) best = { v: r.data[y * 101 + x]!, x, y };
  assert.ok(Math.abs(best.x - (50 + 40 * Math.cos(Math.PI / 18))) <= 1 && Math.abs(best.y - (50 + 40 * Math.sin(Math.PI / 18))) <= 1, JSON.stringify(best));
  const black: GrayImage = { width: 50, height: 50, data: new Uint8Array(2500) };
  assert.equal(rotateSmall(black, 20).data[0], 255);
});

test('reduced copy: means of blocks rounded halves up, partial blocks dropped, factor 1 crops nothing', () => {
  // 5 x 3 image, factor 2: two blocks across (the fifth column dropped), one down (the third row dropped).
  const img: GrayImage = { width: 5, height: 3, data: Uint8Array.from([10, 11, 100, 100, 7, 10, 11, 101, 100, 7, 0, 0, 0, 0, 0]) };
  const r = reduceGray(img, 2);
  assert.equal(r.width, 2);
  assert.equal(r.height, 1);
  // (10+11+10+11)/4 = 10.5 -> 11; (100+100+101+100)/4 = 100.25 -> 100.
  assert.deepEqual([...r.data], [11, 100]);
  const page = textPage(300, 200, 1);
  const three = reduceGray(page, 3);
  for (const [x, y] of [[0, 0], [17, 20], [99, 65]] as const) {
    let s = 0;
    for (let dy = 0; dy < 3; dy++) for (let dx = 0; dx < 3; dx++) s += page.data[(y * 3 + dy) * 300 + x * 3 + dx]!;
    assert.equal(three.data[y * 100 + x], Math.round(s / 9));
  }
  assert.deepEqual([...reduceGray(page, 1).data], [...page.data]);
});

/** Bilinear small rotation written plainly (Math.floor, no shortcuts): what rotateSmall must equal. */
function rotateReference(img: GrayImage, degrees: number): Uint8Array {
  const { width: w, height: h, data } = img;
  const out = new Uint8Array(w * h);
  const a = (degrees * Math.PI) / 180;
  const [cos, sin, cx, cy] = [Math.cos(a), Math.sin(a), (w - 1) / 2, (h - 1) / 2];
  for (let y = 0; y < h; y++) {
    let sx = cx - cx * cos + (y - cy) * sin;
    let sy = cy + cx * sin + (y - cy) * cos;
    for (let x = 0; x < w; x++, sx += cos, sy -= sin) {
      const x0 = Math.floor(sx);
      const y0 = Math.floor(sy);
      if (x0 < 0 || y0 < 0 || x0 >= w - 1 || y0 >= h - 1) {
        const nx = Math.round(sx);
        const ny = Math.round(sy);
        out[y * w + x] = nx >= 0 && ny >= 0 && nx < w && ny < h ? data[ny * w + nx]! : 255;
        continue;
      }
      const i = y0 * w + x0;
      const top = data[i]! + (data[i + 1]! - data[i]!) * (sx - x0);
      const bottom = data[i + w]! + (data[i + w + 1]! - data[i + w]!) * (sx - x0);
      out[y * w + x] = Math.round(top + (bottom - top) * (sy - y0));
    }
  }
  return out;
}

test('small rotation is bit for bit plain bilinear interpolation, edges included', () => {
  const page = textPage(640, 480, 0);
  for (const deg of [2.5, -1.2, 0.3, -6, 45]) {
    const fast = rotateSmall(page, deg).data;
    const ref = rotateReference(page, deg);
    let differ = 0;
    for (let i = 0; i < fast.length; i++) if (fast[i] !== ref[i]) differ++;
    assert.equal(differ, 0, `${deg} degrees: ${differ} pixels differ`);
  }
});

const german =
  'Die Arbeit beschreibt den Aufbau der Vorlage und die Regeln, die für eine Abschlussarbeit an der Fakultät gelten. ' +
  'Das Exposé ist nicht länger als zehn Seiten und wird mit dem Antrag auf Zulassung eingereicht. Es enthält eine ' +
  'Fragestellung, den Stand der Forschung und einen Zeitplan, der mit der Betreuerin oder dem Betreuer besprochen wird. ' +
  'Die Literatur wird am Ende in einem Verzeichnis aufgeführt, das sich nach den Vorgaben des Instituts richtet.';
const english =
  'This package provides some miscellaneous tools for mathematical accents, with the following goals in mind. ' +
  'The commands are defined so that they work in every math style, and the accents are placed on the symbol as it ' +
  'is typeset by the font. It is the first version of the package and it was written for the needs of its author, ' +
  'who is grateful for any suggestions that are sent to him by the users of this package.';

test('OCR language: guessed from enough words, mapped to tesseract names, only when installed and not configured', () => {
  assert.equal(textLanguage(german), 'de');
  assert.equal(textLanguage(english), 'en');
  assert.equal(textLanguage('Die Arbeit und der Plan'), undefined); // too few words to tell
  assert.equal(textLanguage(Array.from({ length: 60 }, (_, i) => `xq${i}z`).join(' ')), undefined); // garbled: no guess
  assert.equal(languagesFor('de', 'eng', new Set(['eng', 'deu'])), 'deu+eng');
  assert.equal(languagesFor('de', 'eng', new Set(['eng'])), null); // not installed
  assert.equal(languagesFor('de', 'eng+deu', new Set(['eng', 'deu'])), null); // configured already
  assert.equal(languagesFor('en', 'eng', new Set(['eng'])), null);
  assert.equal(languagesFor('ko', 'eng', new Set(['eng', 'kor'])), null); // no tesseract name known
  assert.deepEqual([...parseListLangs('List of available languages in "/usr/share/tesseract-ocr/5/tessdata/" (4):\ndeu\neng\nosd\npor\n')], ['deu', 'eng', 'por']);
});

test('the document language is decided once, by the first page that can tell, and asks for installed languages only then', async () => {
  let asked = 0;
  const list = async (): Promise<Set<string>> => (asked++, new Set(['eng', 'deu', 'por']));
  const c = new OcrLanguageChoice('eng', list);
  assert.equal(await c.consider('Kapitel 1'), null);
  assert.equal(c.decided, false);
  assert.equal(asked, 0);
  assert.equal(await c.consider(german), 'deu+eng');
  assert.equal(c.current, 'deu+eng');
  assert.equal(await c.consider(english), null); // decided: later pages do not change it
  assert.equal(c.current, 'deu+eng');
  assert.equal(asked, 1);
  const e = new OcrLanguageChoice('eng', list);
  assert.equal(await e.consider(english), null);
  assert.equal(e.decided, true);
  assert.equal(e.current, 'eng');
  assert.equal(asked, 1); // English is configured: no need to ask
});

/** A workspace whose tesseract answers with a fixed TSV per language string, recording the runs. */
function fakeOcr(tsvFor: (langs: string) => string, runs: ToolRun[]): Workspace {
  const ok = (out: string): ToolResult => ({ exitCode: 0, signal: null, stdout: new TextEncoder().encode(out), stderr: '', timedOut: false, aborted: false, outputLimitExceeded: false, spawnFailed: false, durationMs: 1 });
  return {
    writeFile: async () => {},
    readFile: async () => null,
    list: async () => [],
    remove: async () => {},
    dispose: async () => {},
    run: async (r) => {
      runs.push(r);
      const l = r.args.indexOf('-l');
      return ok(tsvFor(l >= 0 ? r.args[l + 1]! : ''));
    },
  };
}

const tsvOf = (text: string, conf: number): string => {
  const head = 'level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext';
  const rows = text.split(' ').map((w, i) => `5\t1\t1\t1\t${1 + Math.floor(i / 10)}\t${(i % 10) + 1}\t${10 + (i % 10) * 60}\t${20 + Math.floor(i / 10) * 30}\t50\t20\t${conf}\t${w}`);
  return [head, ...rows].join('\n');
};

test('a page that decides a language is read again with it, and the next page starts with it', async () => {
  const runs: ToolRun[] = [];
  const ws = fakeOcr((langs) => tsvOf(langs.startsWith('deu') ? german : german.replace(/ä/g, 'a').replace(/ü/g, 'u'), langs.startsWith('deu') ? 92 : 80), runs);
  const choice = new OcrLanguageChoice('eng', async () => new Set(['eng', 'deu']));
  const page = encodePgm(textPage(400, 500, 0));
  const opts = { workspace: ws, budgetMs: 60_000, now: () => 0 };
  const r1 = await recognizePageInLanguage(page, 150, 'ocr-1.pgm', opts, choice);
  assert.deepEqual(runs.map((r) => r.args[r.args.indexOf('-l') + 1]), ['eng', 'deu+eng']);
  assert.ok(r1!.lines.map((l) => l.text).join(' ').includes('Fakultät'));
  runs.length = 0;
  await recognizePageInLanguage(page, 150, 'ocr-2.pgm', opts, choice);
  assert.deepEqual(runs.map((r) => r.args[r.args.indexOf('-l') + 1]), ['deu+eng']);
  // English pages are read once.
  runs.length = 0;
  const en = new OcrLanguageChoice('eng', async () => new Set(['eng', 'deu']));
  await recognizePageInLanguage(page, 150, 'ocr-1.pgm', { ...opts, workspace: fakeOcr(() => tsvOf(english, 90), runs) }, en);
  assert.deepEqual(runs.map((r) => r.args[r.args.indexOf('-l') + 1]), ['eng']);
});

test('a known quarter turn is read at that turn only, even when the reading is poor', async () => {
  const runs: ToolRun[] = [];
  const ws = fakeOcr(() => tsvOf(english, 30), runs);
  const { recognizePage } = await import('../../src/recognition/ocr/ocr-engine.js');
  const page = encodePgm(textPage(400, 500, 0));
  const r = await recognizePage(page, 150, 'ocr-1.pgm', { workspace: ws, languages: 'eng', budgetMs: 60_000, now: () => 0, knownRotation: 90 });
  assert.equal(runs.length, 1);
  assert.equal(r!.rotation, 90);
  assert.equal(Math.round(r!.width), Math.round((500 * 72) / 150)); // turned: the page's width is the image's height
  // Without it, a poor reading tries orientation detection and the other turns.
  runs.length = 0;
  await recognizePage(page, 150, 'ocr-1.pgm', { workspace: ws, languages: 'eng', budgetMs: 60_000, now: () => 0 });
  assert.ok(runs.length > 1);
});
