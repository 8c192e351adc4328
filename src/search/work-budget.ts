// Every query's work is bounded before it runs (issue 12, docs/operations.md "Limits"): the number of
// distinct index terms it asks for, the postings those terms would have the engine touch (their
// document frequencies, summed over the indexes searched), and results x terms (the passages and
// snippets it would build). A query over either budget is refused
// with 422 before any work, saying which budget and by how much. Searches take fair turns
// (FairScheduler): one account has at most `concurrency` searches running or waiting (429 beyond),
// and its queries queue behind each other, not in front of everyone else's.
import { AppError } from '../domain/errors.js';
import type { ParsedQuery } from '../engine/query-parser.js';

export interface WorkBudget {
  /** Most distinct index terms in one query (words, their variants and phrase terms). */
  maxTerms: number;
  /** Most postings (sum of the query terms' document frequencies, over the indexes searched). */
  maxPostings: number;
  /** Most results times distinct terms (offset + limit, times terms): the passage and snippet work. */
  maxResultTerms: number;
  /** Most searches of one account running or waiting at once (per serving process). */
  concurrency: number;
  /** Searches doing their work at once (per serving process); the rest wait their turn, fairly. */
  slots: number;
}

/** What the budget needs of an index. */
export interface BudgetedIndex {
  parse(text: string, possibleLanguages?: string[] | null): ParsedQuery;
  docFreq(term: string): number;
}

/** Throws 422 when the query asks for more terms or postings than the budget allows. */
export function checkWorkBudget(indexes: readonly BudgetedIndex[], text: string, possibleLanguages: string[] | null, results: number, budget: WorkBudget, resultsHint?: string): void {
  let postings = 0;
  for (const index of indexes) {
    const parsed = index.parse(text, possibleLanguages);
    const terms = new Set<string>();
    for (const w of parsed.words) for (const t of w.terms) terms.add(t);
    if (terms.size > budget.maxTerms) {
      throw new AppError('validation_failed', `The query has ${terms.size} distinct terms; the limit is ${budget.maxTerms}. Shorten it or split it into several searches.`, {
        extra: { budget: 'terms', limit: budget.maxTerms, value: terms.size },
      });
    }
    if (terms.size * results > budget.maxResultTerms) {
      throw new AppError('validation_failed', `${results} results of a query of ${terms.size} distinct terms is more passage and snippet work than one search may do (results x terms at most ${budget.maxResultTerms}); ${resultsHint ?? 'ask for fewer results (offset + limit) or shorten the query'}.`, {
        extra: { budget: 'result_terms', limit: budget.maxResultTerms, value: terms.size * results },
      });
    }
    for (const t of terms) postings += index.docFreq(t);
    if (postings > budget.maxPostings) {
      throw new AppError('validation_failed', `The query's terms occur in more than ${budget.maxPostings} postings (the work limit of one search); remove very common words or add quotes or filters.`, {
        extra: { budget: 'postings', limit: budget.maxPostings, value: postings },
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
