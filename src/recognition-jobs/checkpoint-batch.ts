// Page checkpoints written in batches (ADR 0096): the converter hands over each page as it finishes, and
// the batch is written when it holds `pages` pages or `ms` after its first page, whichever comes first,
// rather than one store write (and one progress update) per page. A conversion that finishes before a batch
// is due writes no checkpoint at all: its result is stored instead. What a crash can cost is the pages of
// one batch (at most `ms` of work, or `pages` pages), converted again on resume.
import type { PageCheckpoint } from '../recognition/index.js';

/** Defaults: 16 pages or a quarter of a second, whichever comes first. */
export const DEFAULT_CHECKPOINT_BATCH = { pages: 16, ms: 250 } as const;

export class CheckpointBatch {
  readonly #write: (batch: readonly PageCheckpoint[]) => Promise<void>;
  readonly #pages: number;
  readonly #ms: number;
  #buffer: PageCheckpoint[] = [];
  #timer: NodeJS.Timeout | null = null;
  /** The writes so far, in order; rejected from the first failure on. */
  #written: Promise<void> = Promise.resolve();
  #failure: { error: unknown } | null = null;

  /**
   * @param write stores one batch (in page order); a rejection stops the conversion at its next page
   * @param pages a batch is written once it holds this many pages (1: every page, awaited)
   * @param ms ... or this long after its first page
   */
  constructor(write: (batch: readonly PageCheckpoint[]) => Promise<void>, pages: number = DEFAULT_CHECKPOINT_BATCH.pages, ms: number = DEFAULT_CHECKPOINT_BATCH.ms) {
    this.#write = write;
    this.#pages = Math.max(1, Math.floor(pages));
    this.#ms = Math.max(0, ms);
  }

  /**
   * Takes one page's checkpoint (the converter's `onPage`): resolves at once, or when a full batch has been
   * written; rejects with the failure of an earlier write, which stops the conversion.
   */
  add(checkpoint: PageCheckpoint): Promise<void> {
    if (this.#failure) return Promise.reject(this.#failure.error);
    this.#buffer.push(checkpoint);
    if (this.#buffer.length >= this.#pages) return this.flush();
    if (!this.#timer) {
      this.#timer = setTimeout(() => void this.flush().catch(() => {}), this.#ms);
      this.#timer.unref();
    }
    return Promise.resolve();
  }

  /** Writes the buffered pages (after the writes under way); rejects when a write failed. */
  flush(): Promise<void> {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    const batch = this.#buffer;
    this.#buffer = [];
    this.#written = this.#written.then(async () => {
      if (batch.length === 0) return;
      try {
        await this.#write(batch);
      } catch (e) {
        this.#failure ??= { error: e };
        throw e;
      }
    });
    return this.#written;
  }

  /** Drops the buffered pages (the result is stored instead) and waits for the writes under way, ignoring their failures. */
  async discard(): Promise<void> {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    this.#buffer = [];
    await this.#written.catch(() => {});
  }
}
