// Where a word (`or`) query's ranking work goes, from the engine's own trace (ADR 0358): per query and
// segment, the docs MaxScore visited as candidates and those it scored in full (every non-essential
// clause probed), split into the first segment searched and the later ones. The later segments start
// from the threshold the earlier ones reached, so the first segment's excess over them is the cost of
// the threshold's ramp-up, which a better seed (ADR 0329's champion lists, or anything after them) can
// remove; the later segments' counts are what tighter bounds would have to cut.
//
//   node dist/bench/engine/or-stages.js --dir /tmp/idx-100k [--classes or,filter] [--out stages.json]
import { writeFileSync } from 'node:fs';
import { FsIndexDirectory } from '../../src/adapters/fs/index-directory.js';
import { SearchIndex } from '../../src/engine/index.js';
import { machine } from '../lib/machine.js';
import { loadSynthWorkload, workloadQuery } from '../lib/synth-workload.js';
import { arg, pct } from '../lib/cli.js';

const dir = arg('dir')!;
const classes = arg('classes', 'or')!.split(',');
const outPath = arg('out');
const workload = loadSynthWorkload();
const idx = SearchIndex.open(new FsIndexDirectory(dir));
const r1 = (x: number): number => Math.round(x * 10) / 10;
const result: Record<string, unknown> = { meta: { ...machine(), dir }, classes: {} };
for (const cls of classes) {
  const qs = workload[cls]!;
  let segs = 0;
  let seeded = 0;
  const first = { candidates: 0, scored: 0 };
  const later = { candidates: 0, scored: 0, segments: 0 };
  const perQuery: number[] = [];
  for (const w of qs) {
    const r = idx.search({ ...workloadQuery(w), trace: true });
    const s = r.trace!.segments;
    segs = s.length;
    if (r.trace!.championFloor !== undefined) seeded++;
    let c = 0;
    s.forEach((x, i) => {
      c += x.candidates;
      if (i === 0) {
        first.candidates += x.candidates;
        first.scored += x.scored;
      } else {
        later.candidates += x.candidates;
        later.scored += x.scored;
        later.segments++;
      }
    });
    perQuery.push(c);
  }
  perQuery.sort((a, b) => a - b);
  const n = qs.length;
  const out = {
    queries: n,
    segments: segs,
    seeded_by_champions: seeded,
    candidates_per_query: { mean: r1(perQuery.reduce((a, b) => a + b, 0) / n), p50: pct(perQuery, 50), p99: pct(perQuery, 99) },
    first_segment_per_query: { candidates: r1(first.candidates / n), scored: r1(first.scored / n) },
    later_segment_per_query_and_segment: { candidates: r1(later.candidates / Math.max(1, later.segments)), scored: r1(later.scored / Math.max(1, later.segments)) },
  };
  (result['classes'] as Record<string, unknown>)[cls] = out;
  console.log(cls, JSON.stringify(out));
}
idx.close();
if (outPath !== undefined) writeFileSync(outPath, JSON.stringify(result, null, 2) + '\n');
