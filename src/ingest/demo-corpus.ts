// The bundled demo corpus in a store (docs/ingest.md "The demo corpus"): it is loaded on first start
// when the store is empty (config load_demo_corpus), so an operator's own collection could otherwise end
// up mixed with it unnoticed. This says whether the store holds it and removes exactly its documents
// (the ids its files define), leaving everything else.
//
// Nothing here parses the demo files (ADR 0243): their ids are committed beside them (corpus/demo/ids.txt,
// one per line, checked against the files by test/ingest/operator.test.ts), and whether the store holds
// the corpus at all is one look-up of a few marker ids, so a server or CLI start with the demo corpus
// absent reads nothing of it.
import { nowSeconds, type Clock } from '../ports/clock.js';
import type { DocumentStore } from '../ports/document-store.js';
import type { SourceFiles } from '../ports/source-files.js';
import { RecordError } from './formats/common.js';
import { parseRecord } from './ingest-service.js';

export interface DemoCorpusStatus {
  /** True when the store holds the demo corpus (any of its marker documents). */
  present: boolean;
  /** How many of the demo corpus's documents the store holds. */
  documents: number;
}

/**
 * The first document of each demo file: loading the demo corpus stores them first, and `lectern demo
 * remove` deletes them with the rest, so the store holds the corpus exactly when it holds one of them.
 */
export const DEMO_MARKER_IDS: readonly string[] = ['W21837692', 'acl-2020.acl-main.447', 'quantumcomputing:1'];

const CHUNK = 1000;

/** The document ids a set of demo files defines, in file order (parses every record: the committed list's check). */
export async function parseDemoIds(files: SourceFiles, paths: readonly string[]): Promise<string[]> {
  const ids: string[] = [];
  for (const path of paths) {
    for await (const line of files.lines(path)) {
      if (line.text.trim() === '') continue;
      try {
        ids.push(parseRecord(JSON.parse(line.text) as Record<string, unknown>, 'auto').record.id);
      } catch (e) {
        if (!(e instanceof RecordError) && !(e instanceof SyntaxError)) throw e;
      }
    }
  }
  return ids;
}

export class DemoCorpus {
  #ids: string[] | null = null;

  constructor(
    private readonly files: SourceFiles,
    /** The committed id list (corpus/demo/ids.txt). */
    private readonly idsPath: string,
    private readonly store: DocumentStore,
    private readonly clock: Clock,
    /** Called after documents were deleted (the indexes catch up). */
    private readonly onChange: () => Promise<void> = async () => {},
  ) {}

  /** The document ids of the demo corpus (the committed list, read once). */
  async ids(): Promise<string[]> {
    if (this.#ids) return this.#ids;
    const ids: string[] = [];
    for await (const line of this.files.lines(this.idsPath)) {
      const id = line.text.trim();
      if (id !== '') ids.push(id);
    }
    this.#ids = ids;
    return ids;
  }

  /** Whether the store holds the demo corpus: one look-up of the marker ids, no file read. */
  async present(): Promise<boolean> {
    return (await this.store.getMany([...DEMO_MARKER_IDS])).size > 0;
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

  /** Whether the store holds the demo corpus and how many of its documents (counted only when it does). */
  async status(): Promise<DemoCorpusStatus> {
    if (!(await this.present())) return { present: false, documents: 0 };
    const n = (await this.#held()).length;
    return { present: n > 0, documents: n };
  }

  /** Deletes the demo corpus's documents (every id of the list, markers or not); returns how many. */
  async remove(): Promise<number> {
    const held = await this.#held();
    let removed = 0;
    for (const id of held) if (await this.store.delete(id, nowSeconds(this.clock))) removed++;
    if (removed > 0) await this.onChange();
    return removed;
  }
}
