// The bundled demo corpus in a store (docs/ingest.md "The demo corpus"): it is loaded on first start
// when the store is empty (config load_demo_corpus), so an operator's own collection could otherwise end
// up mixed with it unnoticed. This says whether the store holds it and removes exactly its documents
// (the ids its files define), leaving everything else.
import { nowSeconds, type Clock } from '../ports/clock.js';
import type { DocumentStore } from '../ports/document-store.js';
import type { SourceFiles } from '../ports/source-files.js';
import { RecordError } from './formats/common.js';
import { parseRecord } from './ingest-service.js';

export interface DemoCorpusStatus {
  /** True when the store holds any document of the demo corpus. */
  present: boolean;
  /** How many of the demo corpus's documents the store holds. */
  documents: number;
}

const CHUNK = 1000;

export class DemoCorpus {
  #ids: string[] | null = null;

  constructor(
    private readonly files: SourceFiles,
    private readonly paths: readonly string[],
    private readonly store: DocumentStore,
    private readonly clock: Clock,
    /** Called after documents were deleted (the indexes catch up). */
    private readonly onChange: () => Promise<void> = async () => {},
  ) {}

  /** The document ids the demo files define (read once). */
  async ids(): Promise<string[]> {
    if (this.#ids) return this.#ids;
    const ids: string[] = [];
    for (const path of this.paths) {
      for await (const line of this.files.lines(path)) {
        if (line.text.trim() === '') continue;
        try {
          ids.push(parseRecord(JSON.parse(line.text) as Record<string, unknown>, 'auto').record.id);
        } catch (e) {
          if (!(e instanceof RecordError) && !(e instanceof SyntaxError)) throw e;
        }
      }
    }
    this.#ids = ids;
    return ids;
  }

  async #held(): Promise<string[]> {
    const ids = await this.ids();
    const held: string[] = [];
    for (let i = 0; i < ids.length; i += CHUNK) {
      const found = await this.store.getMany(ids.slice(i, i + CHUNK));
      for (const id of found.keys()) held.push(id);
    }
    return held;
  }

  async status(): Promise<DemoCorpusStatus> {
    const n = (await this.#held()).length;
    return { present: n > 0, documents: n };
  }

  /** Deletes the demo corpus's documents; returns how many. */
  async remove(): Promise<number> {
    const held = await this.#held();
    let removed = 0;
    for (const id of held) if (await this.store.delete(id, nowSeconds(this.clock))) removed++;
    if (removed > 0) await this.onChange();
    return removed;
  }
}
