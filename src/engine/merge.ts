// Segment merging: a resumable generator that rewrites several segments (minus deleted docs) into one,
// yielding after bounded work so the host's timer-driven merge step never stalls searches for long.
// Also the merge policy (tiered by size) that picks what to merge.
import { PostingCursor, END } from './postings-cursor.js';
import { DEFAULT_PAIR_RULE, derivePairs, type PairRule } from './pair-postings.js';
import { Segment } from './segment.js';
import { SegmentWriter, NF, compareBytes, type BoundParams } from './segment-writer.js';

/** An input of a merge: a segment and its deletions at merge start. */
export interface MergeInput {
  seg: Segment;
  deleted: Uint32Array | null;
}

/** The finished merge: the new segment bytes and, per input, old doc -> new doc (-1 = dropped). */
export interface MergeOutput {
  bytes: Uint8Array | null;
  docMaps: Int32Array[];
}

const dec = new TextDecoder();

function isDeleted(del: Uint32Array | null, d: number): boolean {
  return del !== null && (del[d >>> 5]! & (1 << (d & 31))) !== 0;
}

/**
 * Merges `inputs` (in order) into one segment. Yields the number of postings processed since the last
 * yield (roughly every `unit` postings; the pair postings, derived again from the merged positions under
 * `pairs`, yield per window of docs); returns the output when done.
 */
export function* mergeSegments(inputs: readonly MergeInput[], unit: number, bound: BoundParams, pairs: PairRule = DEFAULT_PAIR_RULE): Generator<number, MergeOutput, void> {
  const w = new SegmentWriter(bound);
  const docMaps: Int32Array[] = [];
  let work = 0;
  // documents
  for (const { seg, deleted } of inputs) {
    const map = new Int32Array(seg.docCount).fill(-1);
    docMaps.push(map);
    for (let d = 0; d < seg.docCount; d++) {
      if (isDeleted(deleted, d)) continue;
      const c0 = seg.chunkStart[d]!;
      const c1 = seg.chunkStart[d + 1]!;
      const chunks: number[] = [];
      for (let c = c0; c < c1; c++) chunks.push(seg.chunkField[c]!, seg.chunkPos[2 * c]!, seg.chunkPos[2 * c + 1]!, seg.chunkChar[2 * c]!, seg.chunkChar[2 * c + 1]!);
      const t = seg.typeOrd[d]!;
      const l = seg.langOrd[d]!;
      const p = seg.pubOrd[d]!;
      map[d] = w.addDoc({
        id: seg.id(d),
        fieldLen: seg.fieldLen.subarray(d * NF, d * NF + NF),
        fieldCp: seg.fieldCp.subarray(d * NF, d * NF + NF),
        issued: seg.issued[d]!,
        type: t === 0 ? null : seg.typeDict.get(t - 1),
        language: l === 0 ? '' : seg.langDict.get(l - 1),
        publisher: p === 0 ? null : seg.pubDict.get(p - 1),
        workKey: seg.workKey(d),
        chunks,
        keywords: [],
        tokens: seg.tok.subarray(seg.tokOff[d * NF]!, seg.tokOff[d * NF + NF]!),
        tokenFieldEnds: [seg.tokOff[d * NF + 1]! - seg.tokOff[d * NF]!, seg.tokOff[d * NF + 2]! - seg.tokOff[d * NF]!, seg.tokOff[d * NF + 3]! - seg.tokOff[d * NF]!],
        // live docs' stored records are copied (the reader inflates each input block once: docs in order)
        stored: seg.stored.get(d),
      });
      if (++work >= unit) {
        yield work;
        work = 0;
      }
    }
  }
  // keywords, merged in key order so per-key doc lists stay sorted (inputs in order)
  const kwKeys = new Set<string>();
  for (const { seg } of inputs) for (let i = 0; i < seg.kw.size; i++) kwKeys.add(seg.kw.get(i));
  for (const key of kwKeys) {
    for (let s = 0; s < inputs.length; s++) {
      const docs = inputs[s]!.seg.keywordDocs(new TextEncoder().encode(key));
      if (!docs) continue;
      for (const d of docs) {
        const nd = docMaps[s]![d]!;
        if (nd >= 0) w.addKeyword(key, nd);
      }
    }
  }
  // postings: k-way merge of the sorted dictionaries
  const heads = inputs.map(() => 0);
  let posBuf = new Int32Array(256);
  for (;;) {
    let minS = -1;
    for (let s = 0; s < inputs.length; s++) {
      const t = inputs[s]!.seg.terms;
      if (heads[s]! >= t.size) continue;
      if (minS < 0) {
        minS = s;
        continue;
      }
      const m = inputs[minS]!.seg.terms;
      const a = heads[s]!;
      const b = heads[minS]!;
      if (compareBytes(t.blob, t.off[a]!, t.off[a + 1]! - t.off[a]!, m.blob, m.off[b]!, m.off[b + 1]! - m.off[b]!) < 0) minS = s;
    }
    if (minS < 0) break;
    const mt = inputs[minS]!.seg.terms;
    const mb = mt.blob.subarray(mt.off[heads[minS]!]!, mt.off[heads[minS]! + 1]!);
    const term = dec.decode(mb);
    let begun = false;
    for (let s = 0; s < inputs.length; s++) {
      const seg = inputs[s]!.seg;
      const t = seg.terms;
      const h = heads[s]!;
      if (h >= t.size) continue;
      if (compareBytes(t.blob, t.off[h]!, t.off[h + 1]! - t.off[h]!, mb, 0, mb.length) !== 0) continue;
      heads[s] = h + 1;
      if (!begun) {
        w.beginTerm(term, seg.surface(h));
        begun = true;
      }
      const map = docMaps[s]!;
      const cur = new PostingCursor(seg, h);
      for (let d = cur.nextDoc(); d !== END; d = cur.nextDoc()) {
        const nd = map[d]!;
        if (nd < 0) continue;
        const n = cur.tf(0) + cur.tf(1) + cur.tf(2);
        if (posBuf.length < n) posBuf = new Int32Array(n * 2);
        cur.positions(posBuf);
        w.addPosting(nd, cur.tf(0), cur.tf(1), cur.tf(2), posBuf, 0);
        work++;
      }
    }
    w.endTerm();
    if (work >= unit) {
      yield work;
      work = 0;
    }
  }
  if (w.docCount > 0) yield* derivePairs(w, pairs);
  const bytes = w.docCount > 0 ? w.finish() : null;
  return { bytes, docMaps };
}

/**
 * A merge handed to another thread (ADR 0180): the inputs' segment bytes and their deletions at merge
 * start, the name the index reserved for the output, and the scoring bounds the output is built with.
 * Everything in it can be posted to a worker thread (segment bytes in shared memory are not copied).
 */
export interface MergeTask {
  /** The output segment's file name, reserved by the index until the merge is adopted or abandoned. */
  readonly output: string;
  readonly inputs: readonly { readonly name: string; readonly bytes: Uint8Array; readonly deleted: Uint32Array | null }[];
  readonly bound: BoundParams;
  /** The pair postings rule of the output (ADR 0175): the index's own. */
  readonly pairs: PairRule;
}

/** Runs a whole merge task (on any thread): the merged segment's bytes and the inputs' doc maps. */
export function runMerge(task: MergeTask): MergeOutput {
  const gen = mergeSegments(
    task.inputs.map((i) => ({ seg: new Segment(i.name, i.bytes), deleted: i.deleted })),
    1_000_000,
    task.bound,
    task.pairs,
  );
  for (;;) {
    const r = gen.next();
    if (r.done) return r.value;
  }
}

/** Size-tiered merge policy. */
export interface MergePolicy {
  /** Segments of one tier merged together, >= 2, default 8. */
  mergeFactor: number;
  /** Segments below this many docs share the lowest tier, default 20,000. */
  floorDocs: number;
  /** A segment with at least this fraction deleted is rewritten alone, default 0.3. */
  deletedFraction: number;
}

/** Default merge policy. */
export const DEFAULT_MERGE_POLICY: MergePolicy = { mergeFactor: 8, floorDocs: 20_000, deletedFraction: 0.3 };

/** Picks the indexes (into `segs`) of one merge to run, or null. `segs` gives doc and deleted counts. */
export function selectMerge(segs: readonly { docs: number; deleted: number }[], policy: MergePolicy): number[] | null {
  const tiers = new Map<number, number[]>();
  for (let i = 0; i < segs.length; i++) {
    const live = segs[i]!.docs - segs[i]!.deleted;
    const tier = Math.floor(Math.log(Math.max(live, policy.floorDocs) / policy.floorDocs) / Math.log(policy.mergeFactor));
    let l = tiers.get(tier);
    if (!l) tiers.set(tier, (l = []));
    l.push(i);
  }
  for (const tier of [...tiers.keys()].sort((a, b) => a - b)) {
    const l = tiers.get(tier)!;
    if (l.length >= policy.mergeFactor) {
      return l.sort((a, b) => segs[a]!.docs - segs[b]!.docs).slice(0, policy.mergeFactor).sort((a, b) => a - b);
    }
  }
  for (let i = 0; i < segs.length; i++) {
    const s = segs[i]!;
    if (s.docs > 0 && s.deleted / s.docs >= policy.deletedFraction) return [i];
  }
  return null;
}
