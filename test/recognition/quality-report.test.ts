// Quality report: text statistics, language guess, score and grade, and that docs/recognition.md
// documents every report field, error code and warning code.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { convertDocument, RECOGNITION_ERROR_CODES } from '../../src/recognition/index.js';
import { guessLanguage } from '../../src/recognition/report/language-guess.js';
import { gradeOf, SCORE_WEIGHTS, scoreReport } from '../../src/recognition/report/score.js';
import { longestRepeat, plainText, textStatistics } from '../../src/recognition/report/text-statistics.js';
import fc from 'fast-check';
import { repoRoot } from '../helpers/paths.js';
import { buildEpub } from './helpers/epub-builder.js';
import { runner } from './helpers/tools.js';

test('text statistics: garbage, letters, single-character tokens, repetition', () => {
  const s = textStatistics('Hello world \ufffd\ufffd a b c 123');
  assert.equal(s.characters, 18);
  assert.equal(s.garbageRatio, Math.round((2 / 18) * 10000) / 10000);
  assert.equal(s.letterRatio, Math.round((13 / 18) * 10000) / 10000);
  assert.equal(s.singleCharTokenRatio, Math.round((3 / 7) * 10000) / 10000);
  assert.deepEqual(longestRepeat('one two three four x one two three four y'.split(' ')), { words: 4, occurrences: 2, sample: 'one two three four' });
  assert.equal(longestRepeat(['a', 'b', 'c']), null);
  assert.equal(plainText('<!-- page 1 -->\n\n# Title\n\n- item\n\n| a | b |\n| --- | --- |').replace(/\s+/g, ' ').trim(), 'Title item a b');
});

test('longest repeat matches a brute-force oracle', () => {
  const oracle = (t: string[]): number => {
    let best = 0;
    for (let n = 1; n <= Math.min(200, t.length); n++) {
      let ok = false;
      for (let i = 0; i + n <= t.length && !ok; i++)
        for (let j = i + n; j + n <= t.length && !ok; j++) if (t.slice(i, i + n).join(' ') === t.slice(j, j + n).join(' ')) ok = true;
      if (ok) best = n;
    }
    return best;
  };
  fc.assert(
    fc.property(fc.array(fc.constantFrom('a', 'b', 'c', 'd'), { maxLength: 40 }), (t) => {
      assert.equal(longestRepeat(t)?.words ?? 0, oracle(t));
    }),
    { numRuns: 300 },
  );
});

test('language guess by script and by function words', () => {
  assert.equal(guessLanguage('The quick brown fox jumps over the lazy dog and it is in the garden with the cat.').code, 'en');
  assert.equal(guessLanguage('Der schnelle braune Fuchs springt über den faulen Hund und die Katze ist nicht mit dem Hund.').code, 'de');
  assert.equal(guessLanguage('코로나-19 관련 보험약관상 재해보험금 지급문제 및 개선과제를 살펴본다').code, 'ko');
  assert.equal(guessLanguage('تحسين الإنتاجية وحل المشكلات من خلال البرمجة').code, 'ar');
  assert.equal(guessLanguage('اميدنامه پذيرش در بازار اصلی کالای داخلی چگونه').code, 'fa');
  assert.equal(guessLanguage('x').code, 'und');
});

test('score: product of factors, graded; failures and low OCR confidence lower it', () => {
  const base = {
    format: 'pdf',
    pages: { total: 10, textLayer: 10, ocr: 0, empty: 0, failed: 0, skipped: 0, billable: 10, which: { textLayer: [], ocr: [], empty: [], failed: [], skipped: [] } },
    // Distinct made-up words, so nothing repeats and no token is a single letter.
    text: textStatistics(Array.from({ length: 300 }, (_, i) => `w${(i * 7919).toString(26).replace(/[0-9]/g, (d) => 'klmnopqrst'[Number(d)]!)}`).join(' ')),
    ocr: { pages: 0, meanConfidence: null, p10Confidence: null, pagesBelow60: [], rotatedPages: [] },
    structure: { headings: { total: 3, byLevel: {}, bySource: {} }, paragraphs: 5, lists: 0, listItems: 0, tables: 0, figures: 0, captions: 0, equations: 0, footnotes: 0, references: 0, codeBlocks: 0, removedHeaderFooterLines: 0, layoutComplexity: 0, rowSwitches: 0, marginLinesKept: 0, imageDominatedPages: 0 },
  };
  const good = scoreReport(base);
  assert.equal(good.value, 1);
  assert.equal(good.grade, 'A');
  const failed = scoreReport({ ...base, pages: { ...base.pages, textLayer: 5, failed: 5 } });
  assert.equal(failed.components.coverage, 0.5);
  const ocr = scoreReport({ ...base, ocr: { ...base.ocr, pages: 10, meanConfidence: 40 } });
  assert.ok(ocr.value < 0.7);
  assert.deepEqual(['A', 'B', 'C', 'D', 'F'], [0.95, 0.85, 0.7, 0.55, 0.2].map(gradeOf));
  // Single-character tokens: a long letter-spaced text is penalised in full, a short line barely (with the
  // weight of ADR 0340; the refit of ADR 0356 set it to 0, the factor stays for the next fit).
  const w = { ...SCORE_WEIGHTS, singles: 1 };
  const spaced = scoreReport({ ...base, text: textStatistics(Array.from({ length: 400 }, (_, i) => (i % 2 ? 'w o r d' : 'word')).join(' ')) }, w);
  assert.ok(spaced.components.singles! < 0.3, `letter-spaced text: ${spaced.components.singles}`);
  const short = scoreReport({ ...base, text: textStatistics('A file with non-ASCII characters, like é or ç') }, w);
  assert.ok(short.components.singles! > 0.95, `nine words: ${short.components.singles}`);
});

test('docs/recognition.md documents every report field, error code and warning code', async () => {
  const docs = readFileSync(join(repoRoot, 'docs', 'recognition.md'), 'utf8');
  const r = await convertDocument(buildEpub({ chapters: [{ file: 'a.xhtml', body: '<h1>T</h1><p>text</p>' }] }), { runner });
  const keys = new Set<string>();
  const dynamic = new Set(['byLevel', 'bySource', 'tools', 'timings', 'components']);
  const walk = (o: unknown): void => {
    if (!o || typeof o !== 'object' || Array.isArray(o)) return;
    for (const [k, v] of Object.entries(o)) {
      keys.add(k);
      if (!dynamic.has(k)) walk(v);
    }
  };
  walk(r.report);
  // A field is documented as `name` or as a dotted path ending in it (`input.format`).
  const missing = [...keys].filter((k) => !new RegExp(`\`([\\w.]*\\.)?${k}\``).test(docs));
  assert.deepEqual(missing, []);
  const src = readFileSync(join(repoRoot, 'src', 'recognition', 'report', 'quality-report.ts'), 'utf8');
  const warningCodes = [...src.matchAll(/\| '([A-Z_]{3,})'/g)].map((m) => m[1]!);
  assert.ok(warningCodes.length >= 15);
  assert.deepEqual(warningCodes.filter((c) => !docs.includes(`\`${c}\``)), []);
  assert.deepEqual(RECOGNITION_ERROR_CODES.filter((c) => !docs.includes(`\`${c}\``)), []);
});
