// ADR 0195: the search threads write the hits with a serializer specialized for the V2Hit shape
// (wireHitsJson / wireHitsUtf8, through wireHitEncoder with its memo of documents). Its text must be
// the one the route's schema serializer (fast-json-stringify over the shared schemas) writes for the
// presenter's objects, for every page that serializer accepts, and it must refuse the pages that one
// refuses.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compiledHitsSerializer, toWireHit, wireHitEncoder } from '../../src/http/presenters/search.js';
import { wireHitsJson } from '../../src/http/presenters/wire-hits-json.js';
import { toDisplayDocument } from '../../src/domain/display-document.js';
import { HIT_ENCODER_HEAD_ROOM, HIT_ENCODER_TAIL_ROOM, type SearchHit } from '../../src/search/search-types.js';
import type { SnippetWindow } from '../../src/engine/index.js';
import { doc } from '../helpers/documents.js';

const BASE = 'https://lectern.example';
const compiled = compiledHitsSerializer();
const reference = (hits: SearchHit[]) => compiled(hits.map((h) => toWireHit(h, BASE)));
const decode = (b: Uint8Array) => new TextDecoder().decode(b);

const ODD = [
  'plain',
  '',
  'Hydrogen storage in "salt" caverns',
  'Tab\there, newline\nhere, backslash \\ and \u0001 control, \u001f, \u007f',
  'Ünïcödé — 水素 🚀 and a lone \ud800 surrogate, a lone low \udc00 too',
  '</script><b>&amp; \u2028 \u2029',
  'x'.repeat(41) + '"',
  'y'.repeat(6000),
  'z'.repeat(4999) + '\\',
];

function snippet(i: number, text: string, over: Partial<SnippetWindow> = {}): SnippetWindow {
  return {
    field: i % 3 === 0 ? 'title' : i % 3 === 1 ? 'abstract' : 'body',
    text,
    chunkId: i % 2 ? i * 7 : null,
    score: [0.5, 1.25e-7, 123456789.125, 0, -0, 1e21, 5e-324][i % 7]!,
    source: { startChar: i, endChar: i + text.length, fieldLength: 10 * i + text.length },
    highlights: i % 4 === 0 ? [] : [{ start: 0, end: 2 }, { start: 5, end: 9 }],
    sourceHighlights: [],
    ...over,
  };
}

function hit(i: number, over: Partial<SearchHit> = {}): SearchHit {
  const title = ODD[i % ODD.length]!;
  const abstract = i % 5 === 0 ? null : ODD[(i + 3) % ODD.length]!;
  const stored = {
    ...doc(`d${i}`, {
      title,
      abstract,
      uris: [`https://doi.org/10.1/${i}`, 'arxiv:2401.00001'],
      authors: [{ name: 'Zoë "Q" Ångström', orcid: i % 2 ? null : '0000-0001-2345-6789', affiliations: ['Lab\\East'] }] as never,
      type: i % 2 ? 'article' : null,
      language: 'en',
      issuedAt: i % 3 ? 1_600_000_000 + i * 86_400 : null,
      publisher: i % 2 ? 'Pub & Co' : null,
      issns: ['1234-5678'],
      venue: i % 2 ? 'Journal of "Tests"' : null,
      isRetracted: i % 4 === 1,
      notices: i % 4 === 1 ? [{ kind: 'retraction', uri: 'https://r.example/1', documentId: 'n1' }] : [],
      license: i % 2 ? 'CC-BY-4.0' : null,
      attribution: i % 3 === 2 ? { author: 'a', authorUrl: null, url: 'https://x.example', site: 'x', license: 'CC BY-SA' } : null,
      originals: i % 3 === 1 ? [{ format: 'pdf', mediaType: 'application/pdf', blobKey: 'k', bytes: 12, sha256: 'ab', license: null, storedAt: 1 }] : [],
      extra: i % 2 ? { nested: { a: [1, 'b', null] }, 'key "q"': '\u0000' } : {},
    }),
    seq: i,
    workKey: `w${i}`,
    createdAt: 1,
    updatedAt: 2,
    ...(i % 4 === 3 ? { uriMatch: { requested: 'doi:10.1/x', held: 'https://doi.org/10.1/x', exact: false }, versions: [{ id: 'v1', uris: ['u'], type: 'preprint', issuedAt: 1_500_000_000, title: 'V "1"' }] } : {}),
  };
  return {
    id: `d${i}${i % 3 === 0 ? '"é' : ''}`,
    index: 'documents',
    score: [1 / (i + 3), 0, 42, 1e-7, 1e300][i % 5]!,
    snippets: [snippet(i, title), snippet(i + 1, abstract ?? ''), snippet(i + 2, ODD[(i + 5) % ODD.length]!)].slice(0, 1 + (i % 3)),
    doc: i % 6 === 5 ? null : i % 2 ? toDisplayDocument(stored as never) : stored,
    rrf: i % 2 ? { score: 0.0163, contributions: [{ channel: 'fulltext', rank: i + 1, weight: 1, contribution: 0.0163 }, { channel: 'dense', rank: 3, weight: 0.5, contribution: 1e-9 }] } : null,
    ...(i % 3 === 1
      ? {
          candidateScores: {
            document: { bm25: 1.5, age: 0, 'odd "key"': -2 },
            passages: [
              { ordinal: 0, scores: { bm25: 0.25 }, l1Score: 0.75 },
              { ordinal: 3, scores: {}, l1Score: null },
            ],
            scoredPassages: 2,
          },
        }
      : {}),
    ...(i % 4 === 2 ? { evidence: [{ text: 'evi"dence\n', startChar: 3, score: Infinity }, null] } : {}),
    ...over,
  };
}

const pages: SearchHit[][] = [[], [hit(0)], Array.from({ length: 10 }, (_, i) => hit(i + 1)), Array.from({ length: 24 }, (_, i) => hit(i + 11))];

test('the specialized hit serializer writes the schema serializer\'s text for varied pages', () => {
  const encode = wireHitEncoder(BASE);
  for (const page of pages) {
    const want = reference(page);
    assert.equal(wireHitsJson(page, BASE), want);
    assert.equal(decode(encode(page)), want);
    // and again: the documents now from the encoder's memo
    const again = encode(page);
    assert.equal(decode(again), want);
    assert.deepEqual(JSON.parse(decode(again)), JSON.parse(JSON.stringify(page.map((h) => toWireHit(h, BASE)))));
  }
});

test('optional snippet properties left undefined are left out, as the schema serializer does', () => {
  const h = hit(2, { snippets: [{ ...snippet(1, 'a'), chunkId: undefined as never, score: undefined as never }] });
  assert.equal(wireHitsJson([h], BASE), reference([h]));
  assert.doesNotMatch(wireHitsJson([h], BASE), /chunk_id|"score":\s*undefined/);
});

test('infinite scores are written null, as the schema serializer does', () => {
  const page = [hit(1, { score: Infinity }), hit(2, { score: -Infinity, snippets: [snippet(0, 'q', { score: Infinity })] })];
  assert.equal(wireHitsJson(page, BASE), reference(page));
  assert.match(wireHitsJson(page, BASE), /"score":null/);
});

test('pages the schema serializer refuses are refused', () => {
  const bad: [string, SearchHit][] = [
    ['NaN hit score', hit(1, { score: NaN })],
    ['NaN snippet score', hit(1, { snippets: [snippet(0, 'a', { score: NaN })] })],
    ['fractional chunk id', hit(1, { snippets: [snippet(0, 'a', { chunkId: 1.5 })] })],
    ['fractional source offset', hit(1, { snippets: [snippet(0, 'a', { source: { startChar: 1.5, endChar: 3, fieldLength: 9 } })] })],
    ['negative source offset', hit(1, { snippets: [snippet(0, 'a', { source: { startChar: -1, endChar: 3, fieldLength: 9 } })] })],
    ['fractional highlight', hit(1, { snippets: [snippet(0, 'a', { highlights: [{ start: 0.5, end: 2 }] })] })],
    ['NaN evidence score', hit(1, { evidence: [{ text: 'e', startChar: 0, score: NaN }] })],
    ['infinite candidate score', hit(1, { candidateScores: { document: { bm25: Infinity }, passages: [], scoredPassages: 0 } })],
    ['NaN rrf score', hit(1, { rrf: { score: NaN, contributions: [] } })],
  ];
  for (const [what, h] of bad) {
    assert.throws(() => reference([h]), Error, `schema serializer accepts ${what}`);
    assert.throws(() => wireHitsJson([h], BASE), Error, what);
    assert.throws(() => wireHitEncoder(BASE)([h]), Error, what);
  }
});

test('the memo of documents follows the record objects: a new record object is written afresh', () => {
  const encode = wireHitEncoder(BASE);
  const first = hit(1);
  assert.equal(decode(encode([first])), reference([first]));
  // a changed record arrives as a new object (the display cache never mutates what it handed out)
  const changed = { ...first, doc: { ...first.doc!, title: 'A new title' } };
  assert.equal(decode(encode([changed])), reference([changed]));
  assert.match(decode(encode([changed])), /"title":"A new title"/);
  // a buffer of its own, transferable without copying a shared pool: the hits and the room the route
  // writes the envelope into (ADR 0375), nothing else
  const bytes = encode([first, changed]);
  assert.equal(bytes.byteOffset, HIT_ENCODER_HEAD_ROOM);
  assert.equal(bytes.buffer.byteLength, HIT_ENCODER_HEAD_ROOM + bytes.byteLength + HIT_ENCODER_TAIL_ROOM);
});

test('the varied pages carry every property the hit schemas name, so a property added to a schema fails the parity test until the serializer writes it', async () => {
  const { V2Hit, Snippet, SnippetSource, SnippetEvidence, CandidateScores, PassageScores, RrfAttribution } = await import('../../src/http/schemas/search.js');
  const seen = new Map<string, Set<string>>();
  const note = (schema: string, o: unknown) => {
    if (o === null || typeof o !== 'object') return;
    const s = seen.get(schema) ?? new Set<string>();
    for (const k of Object.keys(o)) s.add(k);
    seen.set(schema, s);
  };
  for (const page of pages)
    for (const h of JSON.parse(reference(page)) as Record<string, any>[]) {
      note('V2Hit', h);
      note('CandidateScores', h.candidate_scores);
      for (const p of h.candidate_scores?.passages ?? []) note('PassageScores', p);
      note('RrfAttribution', h.rrf);
      for (const s of h.snippets) {
        note('Snippet', s);
        note('SnippetSource', s.source);
        note('SnippetEvidence', s.evidence);
      }
    }
  for (const [name, schema] of Object.entries({ V2Hit, Snippet, SnippetSource, SnippetEvidence, CandidateScores, PassageScores, RrfAttribution })) {
    const names = Object.keys((schema as { properties: Record<string, unknown> }).properties);
    const missing = names.filter((k) => !seen.get(name)?.has(k));
    assert.deepEqual(missing, [], `${name}: properties no sample page writes (extend hit() above and wireHitsJson)`);
  }
});
