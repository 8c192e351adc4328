// The shard frames' codec (ADR 0291): requests and answers round-trip, stored records travel as their
// bytes, and the reader cuts frames out of a stream however it is chunked (byte by byte, several frames
// in one chunk, a frame over the bound refused).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FRAME_ANSWER, FRAME_ERROR, FrameReader, decodeAnswer, decodeRequest, encodeAnswer, encodeError, encodeRequest } from '../../src/domain/shard-frames.js';

const enc = new TextEncoder();

test('frames: requests, answers with records and errors round-trip through the reader, however the stream is chunked', () => {
  const records = new Map([
    ['a1', enc.encode(JSON.stringify({ id: 'a1', title: 'Åsa "quoted" \\ title' }))],
    ['é2', enc.encode('x'.repeat(70_000))],
  ]);
  const frames = [encodeRequest(7, 'search', 3, { index: 'documents', query: { text: 'heat' } }), encodeAnswer(8, { shard: 3, us: 1.5 }, records), encodeError(9, { status: 404, code: 'not_found', message: 'no' }), encodeAnswer(10, { shard: 1 }, null)];
  const stream = Buffer.concat(frames);
  for (const size of [1, 3, 9, 1000, stream.length]) {
    const got: [number, number, Buffer][] = [];
    const r = new FrameReader(1 << 20, (id, kind, payload) => got.push([id, kind, Buffer.from(payload)]));
    for (let at = 0; at < stream.length; at += size) r.push(stream.subarray(at, at + size));
    assert.deepEqual(got.map(([id, kind]) => [id, kind]), [[7, 2], [8, FRAME_ANSWER], [9, FRAME_ERROR], [10, FRAME_ANSWER]], `chunks of ${size}`);
    assert.deepEqual(decodeRequest(got[0]![1], got[0]![2]), { op: 'search', shard: 3, body: { index: 'documents', query: { text: 'heat' } } });
    const a = decodeAnswer(got[1]![2]);
    assert.deepEqual(a.answer, { shard: 3, us: 1.5 });
    assert.deepEqual(a.records, { a1: JSON.stringify({ id: 'a1', title: 'Åsa "quoted" \\ title' }), 'é2': 'x'.repeat(70_000) });
    assert.deepEqual(JSON.parse(got[2]![2].toString()), { status: 404, code: 'not_found', message: 'no' });
    assert.deepEqual(decodeAnswer(got[3]![2]), { answer: { shard: 1 }, records: null });
  }
});

test('frames: a frame over the bound, or a length too short to be a frame, throws (the connection is closed)', () => {
  const r = new FrameReader(100, () => undefined);
  assert.throws(() => r.push(encodeRequest(1, 'stats', 0, { text: 'x'.repeat(200) })), /at most 100/);
  const bad = Buffer.alloc(8);
  bad.writeUInt32BE(2, 0);
  assert.throws(() => new FrameReader(100, () => undefined).push(bad), /frame of 2 bytes/);
  assert.throws(() => decodeRequest(99, Buffer.from([0, 1, 0x7b, 0x7d])), /not a shard call/);
});
