// Reciprocal Rank Fusion (Cormack, Clarke & Buettcher, SIGIR 2009): score(d) = sum over channels of
// 1 / (k + rank_c(d)), ranks 1-based. Pure and order-independent: channels are processed in name order
// (so floating-point sums do not depend on the input order) and ties are broken deterministically.

/** One ranked list of a channel (e.g. `fulltext`, `sparse`); `ids` best first, unique. */
export interface RankedList {
  channel: string;
  ids: readonly string[];
  /** Weight of the channel's votes (>= 0, default 1): a vote contributes weight / (k + rank). */
  weight?: number;
}

/** One channel's vote for a fused document. */
export interface RrfVote {
  channel: string;
  /** 1-based rank in that channel. */
  rank: number;
  /** weight / (k + rank). */
  contribution: number;
}

/** A fused hit with its exact votes (for `include_rrf_scores`). */
export interface FusedHit {
  id: string;
  score: number;
  /** Votes in channel name order. */
  votes: RrfVote[];
}

/** Options of {@link fuseRrf}. */
export interface RrfOptions {
  /** Smoothing constant, > 0, default 60. */
  k?: number;
  /** Keep at most this many fused hits (default all). */
  limit?: number;
}

/**
 * Fuses ranked lists. Ties on score are broken by the best (smallest) single-channel rank, then by
 * more votes, then by id (ascending). Duplicate ids inside one list keep their first rank.
 * Channels with the same name are merged as if they were one list concatenated in id order of their
 * first appearance (give channels distinct names).
 */
export function fuseRrf(lists: readonly RankedList[], options: RrfOptions = {}): FusedHit[] {
  const k = options.k ?? 60;
  if (!(k > 0) || !Number.isFinite(k)) throw new RangeError('rrf k must be a finite number > 0');
  const sorted = [...lists].sort((a, b) => (a.channel < b.channel ? -1 : a.channel > b.channel ? 1 : 0));
  const byId = new Map<string, FusedHit & { best: number }>();
  for (const list of sorted) {
    const seen = new Set<string>();
    let rank = 0;
    for (const id of list.ids) {
      if (seen.has(id)) continue;
      seen.add(id);
      rank++;
      let h = byId.get(id);
      if (h === undefined) {
        h = { id, score: 0, votes: [], best: Infinity };
        byId.set(id, h);
      }
      const contribution = (list.weight ?? 1) / (k + rank);
      h.votes.push({ channel: list.channel, rank, contribution });
      if (rank < h.best) h.best = rank;
    }
  }
  const out = [...byId.values()];
  for (const h of out) {
    let s = 0;
    for (const v of h.votes) s += v.contribution;
    h.score = s;
  }
  out.sort((a, b) => b.score - a.score || a.best - b.best || b.votes.length - a.votes.length || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const limited = options.limit !== undefined ? out.slice(0, Math.max(0, options.limit)) : out;
  return limited.map(({ id, score, votes }) => ({ id, score, votes }));
}
