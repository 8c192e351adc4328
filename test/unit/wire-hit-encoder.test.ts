// ADR 0150: a search thread serializes the hits of the HTTP response (wireHitEncoder) and the route
// splices them into the envelope it serializes itself (spliceEncodedHits). The result must be the bytes
// the route's own response serializer writes for the whole response: same shared schemas, same
// compiler, same escaping (quotes, control characters, lone surrogates, non-ASCII), same dropping of
// properties the schema does not name.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import Fastify from 'fastify';
import { installValidation } from '../../src/http/validation.js';
import { ALL_SCHEMAS } from '../../src/http/schemas/index.js';
import { ref } from '../../src/http/schemas/common.js';
import { V2SearchResponse } from '../../src/http/schemas/search.js';
import { releaseHitBuffer, spliceEncodedHits, toSearchResponse, wireHitEncoder } from '../../src/http/presenters/search.js';
import { HIT_ENCODER_HEAD_ROOM, HIT_ENCODER_TAIL_ROOM, type SearchHit, type SearchResult } from '../../src/search/search-types.js';
import { doc } from '../helpers/documents.js';

const BASE = 'https://lectern.example';

function hit(i: number, title: string, abstract: string | null): SearchHit {
  const stored = { ...doc(`d${i}`, { title, abstract, authors: [{ name: 'Zoë "Q" Ångström', orcid: null, affiliations: ['Lab\\East'] }] as never }), seq: i, workKey: `w${i}`, createdAt: 1, updatedAt: 2 };
  return {
    id: `d${i}`,
    index: 'documents',
    score: 1 / (i + 3),
    snippets: [
      { field: 'title', text: title, chunkId: null, score: 0.5, source: { startChar: 0, endChar: title.length, fieldLength: title.length }, highlights: [{ start: 0, end: 2 }], sourceHighlights: [{ start: 0, end: 2 }] },
      { field: 'abstract', text: abstract ?? '', chunkId: 3, score: 1.25e-7, source: { startChar: 4, endChar: 9, fieldLength: 40 }, highlights: [], sourceHighlights: [] },
    ],
    doc: stored,
    rrf: i % 2 ? { score: 0.0163, contributions: [{ channel: 'fulltext', rank: i + 1, weight: 1, contribution: 0.0163 }] } : null,
  };
}

const result = (hits: SearchHit[], encoded: Uint8Array | null): SearchResult => ({
  rankingMode: 'documents',
  hits: encoded ? [] : hits,
  encodedHits: encoded ? { bytes: encoded, ids: hits.map((h) => h.id) } : null,
  totalHits: 1234,
  hasNext: true,
  correctedQuery: 'hydrogen "storage"',
  embedMs: null,
  timings: { searchUs: 10, loadUs: 20, totalUs: 40 },
  trajectory: { id: 't-1', feedbackToken: 'tok.en' },
  traces: null,
  cost: 20,
  candidateRanking: null,
});

test('hits encoded apart and spliced into the envelope are the bytes of the whole response serialized at once', async () => {
  const hits = [
    hit(0, 'Hydrogen storage in "salt" caverns', 'Tab\there, newline\nhere, backslash \\ and \u0001 control.'),
    hit(1, 'Ünïcödé — 水素 🚀 and a lone \ud800 surrogate', null),
    hit(2, '</script><b>&amp;', 'x'.repeat(5000)),
  ];
  const app = Fastify();
  installValidation(app, ALL_SCHEMAS);
  const encode = wireHitEncoder(BASE);
  const schema = { response: { 200: ref(V2SearchResponse) } };
  app.get('/whole', { schema }, async () => toSearchResponse(result(hits, null), BASE));
  app.get('/spliced', { schema }, async (_request, reply) => {
    const r = result(hits, encode(hits));
    const body = spliceEncodedHits(reply.serialize(toSearchResponse(r, BASE)) as string, r.encodedHits!.bytes);
    return reply.type('application/json; charset=utf-8').send(body);
  });
  await app.ready();
  const whole = await app.inject({ url: '/whole' });
  const spliced = await app.inject({ url: '/spliced' });
  assert.equal(whole.statusCode, 200);
  assert.equal(spliced.statusCode, 200);
  assert.equal(spliced.body, whole.body);
  assert.deepEqual(spliced.rawPayload, whole.rawPayload);
  assert.equal(spliced.headers['content-type'], whole.headers['content-type']);
  assert.equal(spliced.headers['content-length'], whole.headers['content-length']);
  assert.equal((spliced.json() as { hits: unknown[] }).hits.length, 3);
  // no hits at all
  const none = encode([]);
  assert.equal(new TextDecoder().decode(none), '[]');
  await app.close();
});

test('the encoder returns a buffer of its own (transferable without copying a shared pool), with room for the envelope around the hits (ADR 0375)', () => {
  const bytes = wireHitEncoder(BASE)([hit(0, 'a', 'b')]);
  assert.ok(bytes.buffer instanceof ArrayBuffer);
  assert.equal(bytes.byteOffset, HIT_ENCODER_HEAD_ROOM);
  assert.equal(bytes.buffer.byteLength, HIT_ENCODER_HEAD_ROOM + bytes.byteLength + HIT_ENCODER_TAIL_ROOM);
});

test('splicing into the room around the hits gives the bytes a copy gives, and copies when the envelope does not fit (ADR 0375)', () => {
  const encode = wireHitEncoder(BASE);
  const hits = [hit(0, 'Ünïcödé — 水素 🚀', 'body'), hit(1, 'plain', null)];
  const r = result(hits, encode(hits));
  const bytes = r.encodedHits!.bytes;
  const reference = (envelope: string) => {
    const at = envelope.indexOf('"hits":[]');
    return Buffer.concat([Buffer.from(envelope.slice(0, at + 7)), bytes, Buffer.from(envelope.slice(at + 9))]);
  };
  const envelopes = [
    '{"ranking_mode":"documents","hits":[],"total_hits":2,"corrected_query":"水素 🚀"}',
    // longer than the room after the hits: a copy
    `{"ranking_mode":"documents","hits":[],"corrected_query":"${'é'.repeat(HIT_ENCODER_TAIL_ROOM)}"}`,
    // longer than the room before them
    `{"ranking_mode":"${'d'.repeat(HIT_ENCODER_HEAD_ROOM)}","hits":[]}`,
  ];
  for (const envelope of envelopes) {
    const hitsBefore = Buffer.from(bytes);
    const body = spliceEncodedHits(envelope, bytes);
    assert.deepEqual(body, reference(envelope));
    assert.equal(JSON.parse(body.toString('utf8')).hits.length, 2);
    // the hits themselves are untouched (a copy or the room around them was written, never the hits)
    assert.deepEqual(Buffer.from(bytes), hitsBefore);
  }
  // the first fits: the body is the hits' own buffer, nothing copied
  assert.equal(spliceEncodedHits(envelopes[0]!, bytes).buffer, bytes.buffer);
  assert.notEqual(spliceEncodedHits(envelopes[1]!, bytes).buffer, bytes.buffer);
  // hits in a buffer with no room (another encoder, a copy): spliced by copying, same bytes
  const bare = new Uint8Array(bytes);
  assert.deepEqual(spliceEncodedHits(envelopes[0]!, bare), reference(envelopes[0]!));
  // hits inside a larger buffer that holds other bytes (a pool, a caller's): never written around, copied
  const shared = Buffer.alloc(bytes.byteLength + 8192, 0x7a);
  shared.set(bytes, 4096);
  const view = shared.subarray(4096, 4096 + bytes.byteLength);
  const before = Buffer.from(shared);
  assert.deepEqual(spliceEncodedHits(envelopes[0]!, view), reference(envelopes[0]!));
  assert.deepEqual(shared, before);
});

test('splicing refuses an envelope without an empty hits array', () => {
  assert.throws(() => spliceEncodedHits('{"ranking_mode":"documents","hits":[{"id":"x"}]}', new Uint8Array()), /empty hits array/);
});

test('after the response is written, the hits\' own buffer is detached (its memory freed now, ADR 0378); no other buffer ever is', () => {
  const encode = wireHitEncoder(BASE);
  const hits = encode([hit(0, 'Title', 'Abstract')]);
  const own = hits.buffer;
  const body = spliceEncodedHits('{"ranking_mode":"documents","hits":[],"total_hits":1}', hits);
  assert.equal(body.buffer, own); // the response was written in the room around the hits
  releaseHitBuffer(hits);
  assert.equal(own.byteLength, 0);
  assert.equal(hits.byteLength, 0);
  releaseHitBuffer(hits); // twice: nothing happens
  // a pool's slice, a buffer of a caller's and a shared buffer stay as they are
  const pooled = Buffer.from('[{"id":"x"}]');
  releaseHitBuffer(pooled);
  assert.equal(pooled.toString(), '[{"id":"x"}]');
  const plain = new Uint8Array(100);
  releaseHitBuffer(plain.subarray(HIT_ENCODER_HEAD_ROOM, 100 - HIT_ENCODER_TAIL_ROOM > HIT_ENCODER_HEAD_ROOM ? 100 - HIT_ENCODER_TAIL_ROOM : HIT_ENCODER_HEAD_ROOM));
  assert.equal(plain.byteLength, 100);
  const shared = new Uint8Array(new SharedArrayBuffer(HIT_ENCODER_HEAD_ROOM + 10 + HIT_ENCODER_TAIL_ROOM), HIT_ENCODER_HEAD_ROOM, 10);
  releaseHitBuffer(shared);
  assert.equal(shared.byteLength, 10);
});
