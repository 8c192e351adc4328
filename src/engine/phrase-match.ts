// Ordered-token phrase matching over sorted position lists: the phrase occurs at p when every slot i
// has a token at p + offset_i (offsets come from the query analysis, so stopword gaps are respected).

/**
 * Start positions of phrase occurrences. `lists[i]` holds slot i's positions (sorted ascending) in
 * `buf[starts[i] .. ends[i])`; `offsets[i]` is slot i's offset from slot 0 (offsets[0] = 0).
 * Calls `onMatch(p)` per occurrence and returns the count.
 */
export function matchPhrase(
  buf: Int32Array,
  starts: ArrayLike<number>,
  ends: ArrayLike<number>,
  offsets: ArrayLike<number>,
  onMatch?: (p: number) => void,
): number {
  const k = offsets.length;
  const ptr = new Int32Array(k);
  for (let i = 0; i < k; i++) ptr[i] = starts[i]!;
  let count = 0;
  outer: for (let a = starts[0]!; a < ends[0]!; a++) {
    const p = buf[a]!;
    for (let i = 1; i < k; i++) {
      const want = p + offsets[i]!;
      let j = ptr[i]!;
      const e = ends[i]!;
      while (j < e && buf[j]! < want) j++;
      ptr[i] = j;
      if (j >= e) break outer;
      if (buf[j] !== want) continue outer;
    }
    count++;
    if (onMatch) onMatch(p);
  }
  return count;
}

/**
 * Occurrences of a phrase in one field of one document, from each slot's positions in that field
 * (`offsets`: each slot's offset in the phrase); 0 when a slot has none there.
 */
export function phraseTfInField(lists: readonly (readonly number[])[], offsets: readonly number[]): number {
  if (lists.some((l) => l.length === 0)) return 0;
  const all = Int32Array.from(lists.flat());
  const starts: number[] = [];
  const ends: number[] = [];
  let o = 0;
  for (const l of lists) {
    starts.push(o);
    o += l.length;
    ends.push(o);
  }
  return matchPhrase(all, starts, ends, offsets);
}
