// One turn (or edit) at a time per conversation (issue 26, ADR 0225). Inside a process, turns on one
// conversation queue in arrival order (a FIFO per conversation); across processes sharing a database,
// the holder also takes the conversation's turn lease in the store, renewed while the turn runs, so a
// dead process's lease runs out. A turn that cannot get its turn within `maxWaitMs` gets 429.
import { randomUUID } from 'node:crypto';
import { AppError } from '../domain/errors.js';
import type { Clock } from '../ports/clock.js';
import type { ConversationStore, TurnLease } from '../ports/conversation-store.js';

/** How long a lease holds without renewal; a crashed holder blocks the conversation at most this long. */
export const TURN_LEASE_MS = 30_000;
/** Longest wait for the turn before the request is refused with 429. */
export const TURN_MAX_WAIT_MS = 120_000;

interface Waiter {
  grant: () => void;
  fail: (e: unknown) => void;
}

/** A held turn: release it when the turn is stored or has failed. */
export interface HeldTurn {
  readonly lease: TurnLease;
  release(): Promise<void>;
}

export class TurnLocks {
  /** Conversations with a turn in this process, and the turns waiting behind it (arrival order). */
  readonly #queues = new Map<string, Waiter[]>();
  constructor(
    private readonly store: ConversationStore,
    private readonly clock: Clock,
    private readonly opts: { leaseMs?: number; maxWaitMs?: number } = {},
  ) {}

  get leaseMs(): number {
    return this.opts.leaseMs ?? TURN_LEASE_MS;
  }

  /** Waits for the conversation's turn (in this process, then the store's lease). */
  async acquire(id: string, signal?: AbortSignal): Promise<HeldTurn> {
    const deadline = this.clock.nowMs() + (this.opts.maxWaitMs ?? TURN_MAX_WAIT_MS);
    await this.#local(id, signal, deadline);
    const lease: TurnLease = { token: randomUUID(), untilMs: 0 };
    try {
      for (let pause = 20; ; pause = Math.min(500, pause * 2)) {
        const now = this.clock.nowMs();
        lease.untilMs = now + this.leaseMs;
        if (await this.store.acquireTurn(id, lease, now)) return this.#held(id, lease);
        // Deleted while this turn waited: nothing to answer in.
        if (!(await this.store.get(id))) throw new AppError('not_found', 'Conversation not found.');
        // Another process holds it: poll with backoff until it frees or runs out.
        if (signal?.aborted) throw signal.reason;
        if (now + pause > deadline) throw busy();
        await new Promise((r) => setTimeout(r, pause));
      }
    } catch (e) {
      this.#next(id);
      throw e;
    }
  }

  #local(id: string, signal: AbortSignal | undefined, deadline: number): Promise<void> {
    const q = this.#queues.get(id);
    if (!q) {
      this.#queues.set(id, []);
      return Promise.resolve();
    }
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<void>((resolve, reject) => {
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      };
      const w: Waiter = {
        grant: () => {
          done();
          resolve();
        },
        fail: (e) => {
          done();
          reject(e);
        },
      };
      const leave = (e: unknown) => {
        const i = q.indexOf(w);
        if (i >= 0) q.splice(i, 1);
        w.fail(e);
      };
      const onAbort = () => leave(signal!.reason);
      const timer = setTimeout(() => leave(busy()), Math.max(0, deadline - this.clock.nowMs()));
      timer.unref?.();
      signal?.addEventListener('abort', onAbort, { once: true });
      q.push(w);
    });
  }

  /** Hands the local turn to the next waiter, or frees it. */
  #next(id: string): void {
    const q = this.#queues.get(id);
    const w = q?.shift();
    if (w) w.grant();
    else this.#queues.delete(id);
  }

  #held(id: string, lease: TurnLease): HeldTurn {
    const renew = setInterval(() => {
      lease.untilMs = this.clock.nowMs() + this.leaseMs;
      this.store.renewTurn(id, lease).catch(() => undefined);
    }, Math.max(10, Math.floor(this.leaseMs / 3)));
    renew.unref?.();
    let released = false;
    return {
      lease,
      release: async () => {
        if (released) return;
        released = true;
        clearInterval(renew);
        try {
          await this.store.releaseTurn(id, lease.token);
        } finally {
          this.#next(id);
        }
      },
    };
  }
}

function busy(): AppError {
  return new AppError('rate_limited', 'Another turn of this conversation is still being answered; read the conversation, then try again.', {
    extra: { retry_after_seconds: 5, scope: 'conversation_turn' },
    headers: { 'Retry-After': '5' },
  });
}
