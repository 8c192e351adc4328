// Which shard holds a work (issue 24, docs/scale.md "Shards and routing", ADR 0200).
//
// A document is routed by its work key, so every version of a work lands in the same shard: deduplication
// (collapse by work key), exact total_hits and citing-works counts stay shard-local and exact. The hash is
// MurmurHash3 (x86, 32-bit, seed 0) of the key's UTF-8 bytes, mapped to S shards by Lamping & Veach's
// jump consistent hash ("A Fast, Minimal Memory, Consistent Hash Algorithm", 2014): growing from S to
// S + 1 shards moves only about 1/(S + 1) of the works. Integer arithmetic only (Math.imul, BigInt), so
// the answer is the same on every platform, Node version and run: the routing is part of the on-disk and
// on-the-wire contract of a cluster and must never change for a given key and S.

/** Most shards a cluster may have (a sanity bound for configuration, far above any planned size). */
export const MAX_SHARDS = 4096;

const utf8 = new TextEncoder();

/** MurmurHash3 x86_32 of `bytes` with `seed` (unsigned 32-bit result). */
export function murmur3(bytes: Uint8Array, seed = 0): number {
  const c1 = 0xcc9e2d51;
  const c2 = 0x1b873593;
  let h = seed >>> 0;
  const n = bytes.length;
  const blocks = n & ~3;
  for (let i = 0; i < blocks; i += 4) {
    let k = bytes[i]! | (bytes[i + 1]! << 8) | (bytes[i + 2]! << 16) | (bytes[i + 3]! << 24);
    k = Math.imul(k, c1);
    k = (k << 15) | (k >>> 17);
    k = Math.imul(k, c2);
    h ^= k;
    h = (h << 13) | (h >>> 19);
    h = (Math.imul(h, 5) + 0xe6546b64) | 0;
  }
  const tail = n & 3;
  if (tail > 0) {
    let k = 0;
    if (tail === 3) k ^= bytes[blocks + 2]! << 16;
    if (tail >= 2) k ^= bytes[blocks + 1]! << 8;
    k ^= bytes[blocks]!;
    k = Math.imul(k, c1);
    k = (k << 15) | (k >>> 17);
    k = Math.imul(k, c2);
    h ^= k;
  }
  h ^= n;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

const MASK64 = (1n << 64n) - 1n;
const LCG = 2862933555777941757n;

/** Jump consistent hash: the bucket in [0, buckets) of a 64-bit key (given as a non-negative bigint). */
export function jumpHash(key: bigint, buckets: number): number {
  let b = -1;
  let j = 0;
  let k = key & MASK64;
  while (j < buckets) {
    b = j;
    k = (k * LCG + 1n) & MASK64;
    // the reference's double arithmetic, in its order: (b + 1) * (2^31 / ((k >>> 33) + 1))
    j = Math.floor((b + 1) * (2 ** 31 / (Number(k >> 33n) + 1)));
  }
  return b;
}

/** Checks a shard count: an integer in 1..MAX_SHARDS. */
export function validShardCount(shards: number): boolean {
  return Number.isInteger(shards) && shards >= 1 && shards <= MAX_SHARDS;
}

/**
 * The shard (0-based, < `shards`) of the work with key `workKey`. The key is the document's work key
 * (a document the store has not linked to other versions has its own key). Throws a RangeError for an
 * invalid shard count.
 */
export function shardOfWork(workKey: string, shards: number): number {
  if (!validShardCount(shards)) throw new RangeError(`shard count must be an integer in 1..${MAX_SHARDS}, got ${shards}`);
  if (shards === 1) return 0;
  const bytes = utf8.encode(workKey);
  // two independent 32-bit hashes make the 64-bit key the jump hash wants
  const hi = BigInt(murmur3(bytes, 0));
  const lo = BigInt(murmur3(bytes, 0x9747b28c));
  return jumpHash((hi << 32n) | lo, shards);
}

/** A document's routing key: its work key, or its id when it has none (the store always assigns one). */
export function routingKey(doc: { id: string; workKey?: string | null }): string {
  return doc.workKey !== undefined && doc.workKey !== null && doc.workKey !== '' ? doc.workKey : doc.id;
}
