// The report's measures made in one pass and from shared pieces give what each gave on its own (ADR 0385).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { longTokenRatio, markdownFaults, withoutAddresses } from '../../src/recognition/report/markdown-faults.js';
import { markdownBlocks, sharingMarkdown } from '../../src/recognition/report/shared-markdown.js';
import { gfmTables, textStatistics } from '../../src/recognition/report/text-statistics.js';

const ADDRESS = /\b(?:https?:\/\/|www\.)\S+|\S+@\S+/g;
/** Strings made of the characters the address pattern turns on, white space of several kinds among them. */
const addressy = fc.array(fc.constantFrom('a', 'Z', '9', '@', '.', '/', ':', 'h', 't', 'p', 's', 'w', ' ', '\n', '\t', '\u00a0', '\u3000', '-', '_', 'é', '\u200b', 'http', 'https://', 'www.', '@x'), { maxLength: 60 }).map((a) => a.join(''));

test('withoutAddresses is the address pattern replaced over the whole text', () => {
  fc.assert(fc.property(addressy, (s) => withoutAddresses(s) === s.replace(ADDRESS, ' ')), { numRuns: 3000 });
  for (const s of ['mail me@example.org or see https://x.org/a?b=c and www.example.com.', 'a@b@c d@', '@ @x x@ http://', 'nohttpwww here', 'xhttp://a wwwwww.b', '']) assert.equal(withoutAddresses(s), s.replace(ADDRESS, ' '), s);
});

/** longTokenRatio as it was before ADR 0385: the words of running text, then a second pass over them. */
function longTokenRatioTwoPasses(running: string): number {
  const words: string[] = [];
  for (const t of running.split(/\s+/).filter(Boolean)) {
    const stripped = t.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '');
    if (/\p{L}/u.test(stripped)) words.push(stripped);
  }
  const seen = new Set<string>();
  let long = 0;
  for (const w of words) {
    if (seen.has(w)) continue;
    seen.add(w);
    const letters = /^\p{L}+$/u.test(w);
    if (letters && /\p{Ll}/u.test(w) && [...w].length >= 20) long++;
    else if (letters && /^\p{Lu}?\p{Ll}{3,}\p{Lu}\p{Ll}{3,}$/u.test(w)) long++;
  }
  return words.length ? Math.round((long / words.length) * 10000) / 10000 : 0;
}

test('longTokenRatio in one pass counts as the two passes did', () => {
  const word = fc.constantFrom('the', 'The', 'theTable', 'SyntaxHelpers', 'abcdefghijklmnopqrstuvwxyz', '(word)', 'word,', '"Word"', '123', '--', 'ÄÖÜäöüßabcdefghijklmnopq', 'x', 'tableOf', 'Über');
  const text = fc.array(word, { maxLength: 40 }).map((a) => a.join(' '));
  fc.assert(fc.property(text, (s) => longTokenRatio(s) === longTokenRatioTwoPasses(s)), { numRuns: 500 });
});

test('the pieces shared while a report is built are the ones each measure makes alone', () => {
  const md = ['# Title', 'Some text with a@b.org here.', '| a | b |\n| --- | --- |\n| 1 | 2 3 |\n| | x |', '<!-- page 2 -->', 'More text\nover lines', '$$x^2$$', '- item'].join('\n\n');
  const alone = { stats: textStatistics(md, md), faults: markdownFaults(md), tables: gfmTables(md), blocks: markdownBlocks(md) };
  const shared = sharingMarkdown(md, () => ({ stats: textStatistics(md, md), faults: markdownFaults(md), tables: gfmTables(md), blocks: markdownBlocks(md), again: gfmTables(md) }));
  assert.deepEqual({ ...shared, again: undefined }, { ...alone, again: undefined });
  assert.equal(shared.again, shared.tables, 'made once inside');
  assert.notEqual(gfmTables(md), gfmTables(md), 'nothing kept outside');
  // Another Markdown inside the sharing makes its own pieces.
  const other = '| c | d |\n| --- | --- |\n| 5 | 6 |';
  assert.deepEqual(sharingMarkdown(md, () => gfmTables(other)), gfmTables(other));
});
