// Every query's work is bounded (issue 12, issue 27, docs/operations.md "Limits"): the number of
// distinct index terms it evaluates, the postings those terms have the engine touch (their document
// frequencies, per index searched), and results x terms (the passages, snippets and proximity it
// builds). A long query is evaluated pruned, flagged in the trace, never refused (ADR 0231); only
// input pruning cannot fit (quoted phrases over the budget) is refused with 422 before any work. Searches take fair turns
// (FairScheduler): one account has at most `concurrency` searches running or waiting (429 beyond),
// and its queries queue behind each other, not in front of everyone else's.
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

/**
 * Refuses (422, before any work or charge) only what pruning cannot bring within the budget (ADR 0231):
 * a long query is evaluated pruned (its most common unquoted words left out; the per-hit work reads its
 * weightiest words), never refused. What is left to refuse is input no person writes: quoted phrases
 * with more distinct terms than `maxTerms`, or whose terms (or a query's one word) occur in more than
 * `maxPostings` postings of one index. Each refusal says what to change.
 */
export function checkWorkBudget(indexes: readonly BudgetedIndex[], text: string, possibleLanguages: string[] | null, budget: WorkBudget): void {
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
  }
}

/** One search's place in the {@link FairScheduler}. */
export interface SearchTicket {
  /** Waits for a slot (round-robin across accounts). */
  turn(): Promise<void>;
  /** Gives the slot back (the search's work is done); idempotent. */
  endTurn(): void;
  /** The search ended (success or failure): gives back the slot if held and the account's place. */
  leave(): void;
}

/**
 * Fair turns for search work (which runs on the event loop): at most `slots` searches run at once,
 * waiting searches are served round-robin across accounts (each account's own in arrival order),
 * and one account may have at most `perAccount` searches running or waiting (429 beyond). A storm
 * from one account therefore queues behind itself: another account's search waits for at most the
 * `slots` searches already running, not for the storm.
 */
export class FairScheduler {
  #running = 0;
  readonly #waiting = new Map<number, (() => void)[]>();
  /** Accounts with waiting searches, in round-robin order. */
  readonly #order: number[] = [];
  readonly #held = new Map<number, number>();
  constructor(
    private readonly slots: number,
    private readonly perAccount: number,
  ) {}

  /** Waits for a turn (or throws 429); call the returned function when the search ends. */
  async enter(accountId: number): Promise<() => void> {
    const ticket = this.admit(accountId);
    await ticket.turn();
    return () => ticket.leave();
  }

  /**
   * Counts a search against its account's limit at once (or throws 429) and returns its ticket: the
   * search takes a slot with `turn()` only for its work and gives it back with `endTurn()`, so waiting
   * for something else (the ledger's group commit before and after the work) does not keep a slot
   * while the search threads idle; `leave()` ends the search (and its turn, if still held).
   */
  admit(accountId: number): SearchTicket {
    const n = this.#held.get(accountId) ?? 0;
    if (n >= this.perAccount) {
      throw new AppError('rate_limited', `This account already has ${n} searches in progress or waiting (the limit is ${this.perAccount}); retry after 1 s or wait for them.`, {
        extra: { retry_after_seconds: 1, scope: 'search_concurrency' },
        headers: { 'Retry-After': '1' },
      });
    }
    this.#held.set(accountId, n + 1);
    let turn: 'none' | 'waiting' | 'held' | 'ended' = 'none';
    let left = false;
    const endTurn = () => {
      if (turn !== 'held') return;
      turn = 'ended';
      this.#running--;
      this.#dispatch();
    };
    return {
      turn: async () => {
        if (turn !== 'none' || left) throw new Error('a search ticket takes one turn');
        turn = 'waiting';
        if (this.#running < this.slots && this.#order.length === 0) this.#running++;
        else {
          await new Promise<void>((resolve) => {
            const q = this.#waiting.get(accountId);
            if (q) q.push(resolve);
            else {
              this.#waiting.set(accountId, [resolve]);
              this.#order.push(accountId);
            }
          });
        }
        turn = 'held';
        // left while waiting: the slot just granted goes to the next search
        if (left) endTurn();
      },
      endTurn,
      leave: () => {
        if (left) return;
        left = true;
        endTurn();
        const rest = (this.#held.get(accountId) ?? 1) - 1;
        if (rest <= 0) this.#held.delete(accountId);
        else this.#held.set(accountId, rest);
      },
    };
  }

  /** Searches running and waiting now (for metrics and tests). */
  get stats(): { running: number; waiting: number } {
    let waiting = 0;
    for (const q of this.#waiting.values()) waiting += q.length;
    return { running: this.#running, waiting };
  }

  #dispatch(): void {
    while (this.#running < this.slots && this.#order.length > 0) {
      const accountId = this.#order.shift()!;
      const q = this.#waiting.get(accountId)!;
      const next = q.shift()!;
      if (q.length > 0) this.#order.push(accountId);
      else this.#waiting.delete(accountId);
      this.#running++;
      next();
    }
  }
}
