// Every query's work is bounded (issue 12, issue 27, docs/operations.md "Limits"): the number of
// distinct index terms it evaluates, the postings those terms have the engine touch (their document
// frequencies, per index searched), and results x terms (the passages, snippets and proximity it
// builds). A long query is evaluated pruned, flagged in the trace, never refused (ADR 0231); only
// input pruning cannot fit (quoted phrases over the budget) is refused with 422 before any work. Searches take fair turns
// (FairScheduler): one account has at most `concurrency` searches running or waiting (429 beyond),
// waiting searches are served as a weighted fair queue over their work estimates (ADR 0212), and
// while several accounts have searches in progress none starts more than its share of the slots.
import { AppError } from '../domain/errors.js';
import type { ParsedQuery } from '../engine/query-parser.js';
import { pruneQuery } from '../engine/query-budget.js';

export interface WorkBudget {
  /** Most distinct index terms one query evaluates: a longer query's most common words are left out (ADR 0231). */
  maxTerms: number;
  /** Most postings (sum of the evaluated terms' document frequencies, per index): beyond it the most common words are left out. */
  maxPostings: number;
  /** Results times query words of the per-hit work (passages, snippets, proximity): beyond it that work reads the weightiest words only. */
  maxResultTerms: number;
  /** Most searches of one account running or waiting at once (per serving process). */
  concurrency: number;
  /** Searches doing their work at once (per serving process); the rest wait their turn, fairly. */
  slots: number;
}

/** Fewest query words the per-hit work reads, however many results (500 results: 20 words at the default budget). */
export const MIN_PASSAGE_TERMS = 16;

/** Query words the per-hit work of `results` results reads (EngineQuery.maxPassageTerms). */
export function passageTermCap(budget: Pick<WorkBudget, 'maxResultTerms'>, results: number): number {
  return Math.max(MIN_PASSAGE_TERMS, Math.floor(budget.maxResultTerms / Math.max(1, results)));
}

/** What the budget needs of an index. */
export interface BudgetedIndex {
  parse(text: string, possibleLanguages?: string[] | null): ParsedQuery;
  docFreq(term: string): number;
}

/** What a search will do, as the budget measured it: its postings and its results x terms. */
export interface WorkMeasure {
  postings: number;
  resultTerms: number;
}

/**
 * A search's work estimate, in units of about one posting (~25 ns of engine time): its postings plus its
 * passage and snippet work (results x terms, ~40 postings' worth each), plus a fixed overhead. The fair
 * scheduler charges an account's share by it (ADR 0212).
 */
export function workEstimate(m: WorkMeasure): number {
  return 1000 + m.postings + 40 * m.resultTerms;
}

/**
 * Refuses (422, before any work or charge) only what pruning cannot bring within the budget (ADR 0231):
 * a long query is evaluated pruned (its most common unquoted words left out; the per-hit work reads its
 * weightiest words), never refused. What is left to refuse is input no person writes: quoted phrases
 * with more distinct terms than `maxTerms`, or whose terms (or a query's one word) occur in more than
 * `maxPostings` postings of one index. Each refusal says what to change. Returns the work of the query as
 * it will be evaluated (pruned postings; `results` x the words the per-hit work reads), which the fair
 * turns charge (ADR 0212).
 */
export function checkWorkBudget(indexes: readonly BudgetedIndex[], text: string, possibleLanguages: string[] | null, budget: WorkBudget, results = 0): WorkMeasure {
  let postings = 0;
  let resultTerms = 0;
  for (const index of indexes) {
    const parsed = index.parse(text, possibleLanguages);
    const p = pruneQuery(parsed, (t) => index.docFreq(t), budget);
    if (p.over === 'terms') {
      throw new AppError('validation_failed', `The query's quoted phrases have ${p.terms} distinct terms; at most ${budget.maxTerms} can be evaluated (unquoted words beyond it are left out, quoted ones are required). Quote fewer words.`, {
        extra: { budget: 'terms', limit: budget.maxTerms, value: p.terms },
      });
    }
    if (p.over === 'postings') {
      throw new AppError('validation_failed', `The query's ${parsed.phrases.length > 0 ? 'quoted phrases' : 'word'} occur${parsed.phrases.length > 0 ? '' : 's'} in ${p.postings} postings, more than the ${budget.maxPostings} one search may read (its other words are left out first); add a rarer word, a filter, or quote fewer words.`, {
        extra: { budget: 'postings', limit: budget.maxPostings, value: p.postings },
      });
    }
    postings += p.postings;
    resultTerms += Math.min(p.terms, passageTermCap(budget, results)) * results;
  }
  return { postings, resultTerms };
}

/** An account whose last search ended this recently still counts as searching (its next one is on its way). */
export const ACTIVE_WINDOW_MS = 1000;
/** Accounts remembered as recently active at most (a memory bound). */
const MAX_REMEMBERED = 100_000;

/** One search's place in the {@link FairScheduler}. */
export interface SearchTicket {
  /** Waits for a slot (weighted fair queue across accounts). */
  turn(): Promise<void>;
  /** Gives the slot back (the search's work is done); idempotent. */
  endTurn(): void;
  /**
   * After `turn()`: true when this search was its account's only one in a turn when it got it (the
   * account is within its fair share of the threads). Such a search may take the reserved search lane
   * while other accounts' searches hold the general ones (ADR 0270).
   */
  readonly light: boolean;
  /**
   * Charges the account's share with work done outside the search thread's turn (the main thread's
   * transfer, splicing and writing of the response, ADR 0305), in work-estimate units: the account's
   * next search starts that much later in the fair queue. Call before `leave()`.
   */
  charge(work: number): void;
  /** The search ended (success or failure): gives back the slot if held and the account's place. */
  leave(): void;
}

/**
 * Work-estimate units (~25 ns of engine time each) per byte of a response the main thread transfers,
 * splices and writes (ADR 0305): a rough figure (a few ns per byte of main-thread and kernel copying),
 * so a 600 KiB page of 400 hits with documents costs its account about 150,000 units on top of the
 * search's own estimate.
 */
export const RESPONSE_WORK_PER_BYTE = 0.25;

/** The work {@link SearchTicket.charge} takes for a response of `bytes`. */
export function responseWork(bytes: number): number {
  return Math.round(Math.max(0, bytes) * RESPONSE_WORK_PER_BYTE);
}

interface Waiting {
  accountId: number;
  /** Start tag: the account's virtual time when the search was queued. */
  start: number;
  seq: number;
  /** `light`: the account had no other search in a turn when this one got its turn. */
  resolve: (light: boolean) => void;
}

/**
 * Fair turns for search work, by cost (issue 25, ADR 0212). At most `slots` searches run at once. Waiting
 * searches are served in order of their start tags (start-time fair queuing): a search queued by an
 * account starts at max(system virtual time, the account's finish tag) and moves the account's finish
 * tag on by its work estimate, so an account's expensive searches charge its share: another account's
 * cheap searches go before its next expensive one, however many it queued. With equal costs this is
 * round-robin. While several accounts search (in progress, or ended within ACTIVE_WINDOW_MS), an
 * account starts at most floor(slots / (2 x accounts)) at once, at least one (alone, it may use every
 * slot): slots are twice the search threads, so a flood cannot fill every thread's queue and another
 * account's search finds a thread free. One account has at most `perAccount` searches running or
 * waiting (429 beyond).
 */
export class FairScheduler {
  #running = 0;
  #virtual = 0;
  #seq = 0;
  readonly #waiting: Waiting[] = [];
  /** Searches in progress (admitted, not yet left) per account. */
  readonly #held = new Map<number, number>();
  /** Searches in a turn per account. */
  readonly #runningBy = new Map<number, number>();
  /** Each account's finish tag (virtual time after its searches so far). */
  readonly #finish = new Map<number, number>();
  /** When each account's last search ended (ms, `now`): it counts as active for ACTIVE_WINDOW_MS after. */
  readonly #lastSeen = new Map<number, number>();
  constructor(
    private readonly slots: number,
    private readonly perAccount: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /**
   * How many slots one account may start while `active` accounts search: all of them alone
   * (work-conserving); otherwise half of an equal split, at least one, so each search thread (slots are
   * twice the threads) keeps room for another account's search instead of queueing it behind a flood.
   */
  #share(active: number): number {
    return active <= 1 ? this.slots : Math.max(1, Math.floor(this.slots / (2 * active)));
  }

  /** Accounts with searches in progress, or whose last one ended within ACTIVE_WINDOW_MS (a reader between two searches). */
  #active(): number {
    const t = this.now();
    let n = this.#held.size;
    for (const [a, at] of this.#lastSeen) {
      if (t - at > ACTIVE_WINDOW_MS) this.#lastSeen.delete(a);
      else if (!this.#held.has(a)) n++;
    }
    return n;
  }

  /** Waits for a turn (or throws 429); call the returned function when the search ends. */
  async enter(accountId: number, cost = 1): Promise<() => void> {
    const ticket = this.admit(accountId, cost);
    await ticket.turn();
    return () => ticket.leave();
  }

  /**
   * Throws the 429 that {@link admit} would, without taking a place: the search service calls it before
   * the work budget's check (parsing, document frequencies; on a cluster a call to the shards), so a
   * search refused for the account's concurrency costs the main thread nothing more (ADR 0305).
   */
  checkRoom(accountId: number): void {
    const n = this.#held.get(accountId) ?? 0;
    if (n >= this.perAccount) {
      throw new AppError('rate_limited', `This account already has ${n} searches in progress or waiting (the limit is ${this.perAccount}); retry after 1 s or wait for them.`, {
        extra: { retry_after_seconds: 1, scope: 'search_concurrency' },
        headers: { 'Retry-After': '1' },
      });
    }
  }

  /**
   * Counts a search against its account's limit at once (or throws 429) and returns its ticket: the
   * search takes a slot with `turn()` only for its work and gives it back with `endTurn()`, so waiting
   * for something else (the ledger's group commit before and after the work) does not keep a slot
   * while the search threads idle; `leave()` ends the search (and its turn, if still held). `cost` is
   * the search's work estimate ({@link workEstimate}); it charges the account's share.
   */
  admit(accountId: number, cost = 1): SearchTicket {
    this.checkRoom(accountId);
    const n = this.#held.get(accountId) ?? 0;
    this.#held.set(accountId, n + 1);
    const weight = Math.max(1, Number.isFinite(cost) ? cost : 1);
    let turn: 'none' | 'waiting' | 'held' | 'ended' = 'none';
    let left = false;
    let light = false;
    const endTurn = () => {
      if (turn !== 'held') return;
      turn = 'ended';
      this.#running--;
      const r = (this.#runningBy.get(accountId) ?? 1) - 1;
      if (r <= 0) this.#runningBy.delete(accountId);
      else this.#runningBy.set(accountId, r);
      this.#dispatch();
    };
    return {
      turn: async () => {
        if (turn !== 'none' || left) throw new Error('a search ticket takes one turn');
        turn = 'waiting';
        const start = Math.max(this.#virtual, this.#finish.get(accountId) ?? 0);
        this.#finish.set(accountId, start + weight);
        light = await new Promise<boolean>((resolve) => {
          this.#waiting.push({ accountId, start, seq: this.#seq++, resolve });
          this.#dispatch();
        });
        turn = 'held';
        // left while waiting: the slot just granted goes to the next search
        if (left) endTurn();
      },
      endTurn,
      charge: (work: number) => {
        if (left || !(work > 0) || !Number.isFinite(work)) return;
        this.#finish.set(accountId, Math.max(this.#virtual, this.#finish.get(accountId) ?? 0) + work);
      },
      get light() {
        return light;
      },
      leave: () => {
        if (left) return;
        left = true;
        endTurn();
        const rest = (this.#held.get(accountId) ?? 1) - 1;
        if (rest <= 0) {
          this.#held.delete(accountId);
          this.#lastSeen.delete(accountId);
          if (this.#lastSeen.size >= MAX_REMEMBERED) this.#lastSeen.delete(this.#lastSeen.keys().next().value!);
          this.#lastSeen.set(accountId, this.now());
          // an account without debt is forgotten; one with debt keeps it (leaving does not reset a share)
          if ((this.#finish.get(accountId) ?? 0) <= this.#virtual) this.#finish.delete(accountId);
        } else this.#held.set(accountId, rest);
        // another account's share may have grown
        this.#dispatch();
      },
    };
  }

  /** Searches running and waiting now (for metrics and tests). */
  get stats(): { running: number; waiting: number } {
    return { running: this.#running, waiting: this.#waiting.length };
  }

  #dispatch(): void {
    while (this.#running < this.slots && this.#waiting.length > 0) {
      const share = this.#share(this.#active());
      let best = -1;
      for (let i = 0; i < this.#waiting.length; i++) {
        const w = this.#waiting[i]!;
        if ((this.#runningBy.get(w.accountId) ?? 0) >= share) continue;
        const b = best < 0 ? null : this.#waiting[best]!;
        if (!b || w.start < b.start || (w.start === b.start && w.seq < b.seq)) best = i;
      }
      if (best < 0) return;
      const [w] = this.#waiting.splice(best, 1);
      this.#running++;
      const before = this.#runningBy.get(w!.accountId) ?? 0;
      this.#runningBy.set(w!.accountId, before + 1);
      if (w!.start > this.#virtual) this.#virtual = w!.start;
      w!.resolve(before === 0);
    }
  }
}
