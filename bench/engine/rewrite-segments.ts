// Rewrites every segment of an index directory in this build's segment format, one segment at a time
// (a merge of one input: same docs in the same order, same segmentation), into another directory: the
// A/B copy of an index built by an older build, so both builds search the same segments and differ only
// in the format (e.g. champion lists, ADR 0329). Deleted docs are dropped, as a merge drops them.
//   node dist/bench/engine/rewrite-segments.js --from /tmp/idx-base --to /tmp/idx-new [--pair-terms N] [--pair-df F]
// --pair-terms / --pair-df override the pair rule's maxTerms / dfFraction (ADR 0175; sweeps of ADR 0382).
// Prints the bytes of each rewritten segment by section group.
import { copyFileSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_SCORING } from '../../src/engine/bm25f.js';
import { runMerge } from '../../src/engine/merge.js';
import { DEFAULT_PAIR_RULE } from '../../src/engine/pair-postings.js';
import { Segment } from '../../src/engine/segment.js';
import { DEFAULT_CHAMPION_RULE } from '../../src/engine/segment-writer.js';
import { useZlibStoredCodec } from '../../src/adapters/zlib/stored-codec.js';
import { arg } from '../lib/cli.js';

useZlibStoredCodec();
const from = arg('from')!;
const to = arg('to')!;
const pairRule = { ...DEFAULT_PAIR_RULE };
if (arg('pair-terms') !== undefined) pairRule.maxTerms = Number(arg('pair-terms'));
if (arg('pair-df') !== undefined) pairRule.dfFraction = Number(arg('pair-df'));
rmSync(to, { recursive: true, force: true });
mkdirSync(to, { recursive: true });
const manifest = JSON.parse(readFileSync(join(from, 'manifest.json'), 'utf8')) as { segments: { name: string; bytes: number; delGen: number; deleted: number }[] };
for (const f of readdirSync(from)) if (f !== 'manifest.json' && f !== 'LOCK' && !manifest.segments.some((s) => f.startsWith(s.name))) copyFileSync(join(from, f), join(to, f));
const report: unknown[] = [];
for (const s of manifest.segments) {
  const bytes = new Uint8Array(readFileSync(join(from, s.name)));
  let deleted: Uint32Array | null = null;
  if (s.delGen > 0) {
    const seg = new Segment(s.name, bytes);
    const d = new Uint8Array(readFileSync(join(from, `${s.name}.del-${s.delGen}`)));
    deleted = new Uint32Array(Math.ceil(seg.docCount / 32));
    new Uint8Array(deleted.buffer).set(d.subarray(0, deleted.byteLength));
  }
  const out = runMerge({ output: s.name, inputs: [{ name: s.name, bytes, deleted }], bound: { w: DEFAULT_SCORING.weights, b: DEFAULT_SCORING.b, champions: DEFAULT_CHAMPION_RULE }, pairs: pairRule });
  writeFileSync(join(to, s.name), out.bytes!);
  const seg = new Segment(s.name, out.bytes!);
  const imp = ['impTerm', 'impStart', 'impDoc', 'impTf'].reduce((t, n) => t + seg.file.sectionBytes(n), 0);
  report.push({ name: s.name, docs: seg.docCount, before: bytes.byteLength, after: out.bytes!.byteLength, champion_terms: seg.impTerm.length, champion_bytes: imp });
  s.bytes = out.bytes!.byteLength;
  s.delGen = 0;
  s.deleted = 0;
}
writeFileSync(join(to, 'manifest.json'), JSON.stringify(manifest));
console.log(JSON.stringify(report, null, 1));
