// Canonical URIs: normal forms are fixed points; spellings of one identifier agree.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { arxivFromDoi, canonicalUri, identityKeys } from '../../src/domain/canonical-uri.js';

const doiArb = fc
  .tuple(fc.integer({ min: 1000, max: 999999999 }), fc.stringMatching(/^[A-Za-z0-9.()_;:\-\/]{1,40}$/).filter((s) => s.trim() === s && s.length > 0))
  .map(([reg, suffix]) => `10.${reg}/${suffix}`);

test('DOI spellings normalise to one lower-case doi:// form', () => {
  fc.assert(
    fc.property(doiArb, (doi) => {
      const want = `doi://${doi.toLowerCase()}`;
      for (const s of [`doi://${doi}`, `https://doi.org/${doi}`, `http://dx.doi.org/${doi}`, `doi:${doi}`, doi, `DOI://${doi.toUpperCase()}`, `https://doi.org/${encodeURIComponent(doi)}`]) {
        assert.equal(canonicalUri(s), want, s);
      }
      assert.equal(canonicalUri(want), want);
    }),
  );
});

test('normalisation is idempotent for every scheme', () => {
  const arb = fc.oneof(
    doiArb.map((d) => `doi://${d}`),
    fc.tuple(fc.integer({ min: 701, max: 2912 }), fc.integer({ min: 0, max: 99999 }), fc.option(fc.integer({ min: 1, max: 20 }))).map(([ym, n, v]) => `arxiv://${String(ym).padStart(4, '0')}.${String(n).padStart(5, '0')}${v ? `v${v}` : ''}`),
    fc.integer({ min: 1, max: 99999999 }).map((n) => `pubmed://${n}`),
    fc.integer({ min: 1, max: 9999999 }).map((n) => `pmc://PMC${n}`),
  );
  fc.assert(
    fc.property(arb, (u) => {
      const once = canonicalUri(u);
      assert.ok(once, u);
      assert.equal(canonicalUri(once!), once);
    }),
  );
});

/** ISBN-10 check digit. */
function isbn10(d9: string): string {
  let s = 0;
  for (let i = 0; i < 9; i++) s += Number(d9[i]) * (10 - i);
  const c = (11 - (s % 11)) % 11;
  return d9 + (c === 10 ? 'X' : String(c));
}

test('ISBN-10 and its ISBN-13 are one URI; hyphens ignored; bad check digits refused', () => {
  fc.assert(
    fc.property(fc.stringMatching(/^[0-9]{9}$/), (d9) => {
      const ten = isbn10(d9);
      const u = canonicalUri(`isbn://${ten}`);
      assert.match(u!, /^isbn:\/\/978\d{10}$/);
      assert.equal(canonicalUri(`isbn://${u!.slice(7)}`), u);
      assert.equal(canonicalUri(`ISBN ${ten.slice(0, 1)}-${ten.slice(1, 4)}-${ten.slice(4)}`), u);
      const wrong = ten.slice(0, 9) + (ten[9] === '0' ? '1' : '0');
      assert.equal(canonicalUri(`isbn://${wrong}`), null);
    }),
  );
  assert.equal(canonicalUri('isbn://0-306-40615-2'), 'isbn://9780306406157');
});

test('arXiv ids with and without versions, old style, URLs', () => {
  assert.equal(canonicalUri('arXiv:2101.00001v3'), 'arxiv://2101.00001v3');
  assert.equal(canonicalUri('https://arxiv.org/abs/2101.00001'), 'arxiv://2101.00001');
  assert.equal(canonicalUri('https://arxiv.org/pdf/2101.00001v2.pdf'), 'arxiv://2101.00001v2');
  assert.equal(canonicalUri('arxiv://hep-th/9901001'), 'arxiv://hep-th/9901001');
  assert.equal(canonicalUri('arxiv://math.GT/0309136v1'), 'arxiv://math.GT/0309136v1');
  assert.equal(canonicalUri('arxiv://21.0001'), null);
  assert.deepEqual(identityKeys(['arxiv://2101.00001v3']), ['arxiv://2101.00001']);
  assert.equal(arxivFromDoi('doi://10.48550/arxiv.2101.00001'), 'arxiv://2101.00001');
  assert.ok(identityKeys(['doi://10.48550/arxiv.2101.00001']).includes('arxiv://2101.00001'));
});

test('PubMed and PMC', () => {
  assert.equal(canonicalUri('PMID: 012345'), 'pubmed://12345');
  assert.equal(canonicalUri('https://pubmed.ncbi.nlm.nih.gov/12345/'), 'pubmed://12345');
  assert.equal(canonicalUri('pmc://1234567'), 'pmc://PMC1234567');
  assert.equal(canonicalUri('https://www.ncbi.nlm.nih.gov/pmc/articles/PMC1234567/'), 'pmc://PMC1234567');
});

test('https URLs keep their path, lose their fragment; other schemes refused', () => {
  assert.equal(canonicalUri('https://Example.org/a/b?x=1#frag'), 'https://example.org/a/b?x=1');
  for (const bad of ['ftp://x.org/a', 'http://example.org/a', 'doi://11.1234/x', 'mailto:a@b', '', 'pubmed://abc']) assert.equal(canonicalUri(bad), null, bad);
});
