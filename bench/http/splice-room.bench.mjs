// The route's splice of a search thread's hits into the response envelope (ADR 0375): in the room the hit
// encoder leaves around the hits in their own buffer, against the copy into a new buffer (the same function
// given hits without that room). CPU per splice on the main thread's path, builds of the splice alternated
// round by round in one process.
//   node --expose-gc bench/http/splice-room.bench.mjs [--out FILE]   (needs dist/)
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { spliceEncodedHits } from '../../dist/src/http/presenters/search.js';
import { HIT_ENCODER_HEAD_ROOM, HIT_ENCODER_TAIL_ROOM } from '../../dist/src/search/search-types.js';

// an envelope as the route serializes it (a feedback token's length), and 20 KB of hits (10 with documents and snippets)
const envelope =
  '{"ranking_mode":"documents","hits":[],"total_hits":8123,"has_next":true,"corrected_query":null,"embed_ms":null,"timings":{"search_us":812,"load_us":140,"total_us":1520},"trajectory":{"id":"5b0c3f5e-6d8c-4c39-9f0e-1f1f8e0c2a11","feedback_token":"' +
  'x'.repeat(260) +
  '"},"candidate_ranking":null}';
const N = 20000;
const SIZE = 20000;
const withRoom = () => Buffer.allocUnsafeSlow(HIT_ENCODER_HEAD_ROOM + SIZE + HIT_ENCODER_TAIL_ROOM).fill(0x41).subarray(HIT_ENCODER_HEAD_ROOM, HIT_ENCODER_HEAD_ROOM + SIZE);
const bare = () => Buffer.allocUnsafeSlow(SIZE).fill(0x41);
const rounds = [];
for (let round = 0; round < 6; round++) {
  for (const [label, make] of round % 2 ? [['copy', bare], ['room', withRoom]] : [['room', withRoom], ['copy', bare]]) {
    const inputs = Array.from({ length: N }, make);
    globalThis.gc?.();
    const t = process.cpuUsage();
    let bytes = 0;
    for (const h of inputs) bytes += spliceEncodedHits(envelope, h).byteLength;
    const u = process.cpuUsage(t);
    rounds.push({ round, splice: label, us_per_splice: +((u.user + u.system) / N).toFixed(2), body_bytes: bytes / N, load: loadavg()[0] });
  }
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const out = { what: 'spliceEncodedHits CPU per call, 20 KB of hits, in the room vs copied (ADR 0375)', node: process.version, rounds, median_us: { room: median(rounds.filter((r) => r.splice === 'room').map((r) => r.us_per_splice)), copy: median(rounds.filter((r) => r.splice === 'copy').map((r) => r.us_per_splice)) } };
const at = process.argv.indexOf('--out');
if (at > 0) writeFileSync(process.argv[at + 1], JSON.stringify(out, null, 1) + '\n');
console.log(JSON.stringify(out.median_us), 'load', loadavg()[0]);
