// Large response bodies written in chunks, one chunk per turn of the event loop (issue 25, ADR 0305).
// A search of `limit` 400 with documents and snippets answers ~600 KiB. Written as one buffer, the
// main thread first copies it whole (the envelope spliced around the search thread's hits) and then
// hands it to the socket in one write (0.5-1.2 ms of main-thread CPU on our shared machine), and other
// accounts' requests wait behind both. A PacedBody
// writes the parts as they are (no copy: views of the thread's transferred bytes) in chunks of at most
// `chunkBytes`, pushes the next chunk only on a later turn of the event loop (setImmediate), so other
// requests' I/O runs between two chunks of a large response, and only when the response stream asks
// for more (backpressure: a client that does not read holds its own response, not the main thread).
// The bytes on the wire are the same; the route sets Content-Length, so the framing is the same too.
// Used only with `limits.pacedResponseChunkBytes` set (default off: not shown to help on our machine).
import { Readable } from 'node:stream';

/** Chunk size of a paced body: big enough that a syscall's cost dominates a turn's, small enough to interleave. */
export const PACED_CHUNK_BYTES = 64 * 1024;

export class PacedBody extends Readable {
  readonly #parts: Uint8Array[];
  readonly #chunk: number;
  #part = 0;
  #offset = 0;
  #pending = false;
  /** Chunks pushed so far (for tests and metrics). */
  chunks = 0;
  readonly byteLength: number;

  constructor(parts: readonly Uint8Array[], chunkBytes = PACED_CHUNK_BYTES) {
    super({ highWaterMark: chunkBytes });
    this.#parts = parts.filter((p) => p.byteLength > 0);
    this.#chunk = Math.max(1, chunkBytes);
    this.byteLength = parts.reduce((n, p) => n + p.byteLength, 0);
  }

  /** The next chunk: views into the parts, never a copy (a chunk ends at its part's end). */
  #next(): Uint8Array | null {
    const p = this.#parts[this.#part];
    if (p === undefined) return null;
    const end = Math.min(p.byteLength, this.#offset + this.#chunk);
    const c = p.subarray(this.#offset, end);
    if (end === p.byteLength) {
      this.#part++;
      this.#offset = 0;
    } else this.#offset = end;
    return c;
  }

  override _read(): void {
    if (this.#pending) return;
    // the first chunk at once (the headers go with it); each later one on a later turn of the event loop
    if (this.chunks === 0) {
      this.#emit();
      return;
    }
    this.#pending = true;
    setImmediate(() => {
      this.#pending = false;
      if (!this.destroyed) this.#emit();
    });
  }

  #emit(): void {
    const c = this.#next();
    if (c === null) {
      this.push(null);
      return;
    }
    this.chunks++;
    this.push(Buffer.from(c.buffer, c.byteOffset, c.byteLength));
  }
}
