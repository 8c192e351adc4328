// Ingest: reads JSONL records (OpenAlex, BEIR, Stack Exchange, Lectern), maps them to documents,
// copies originals into the blob store, and upserts in batches. Each batch is one store transaction,
// so a crash leaves every document fully in or absent; re-ingesting updates (same id) and never
// duplicates. A bad line is reported with its number and skipped.
import { createHash } from 'node:crypto';
import type { DocumentRecord, OriginalFile, OriginalFormat } from '../domain/document.js';
import { ORIGINAL_MEDIA_TYPES } from '../domain/document.js';
import { AppError } from '../domain/errors.js';
import type { BlobStore } from '../ports/blob-store.js';
import type { Clock } from '../ports/clock.js';
import { nowSeconds } from '../ports/clock.js';
import type { DocumentStore } from '../ports/document-store.js';
import type { SourceFiles } from '../ports/source-files.js';
import { parseBeir, looksLikeBeir } from './formats/beir.js';
import { RecordError, type OriginalRef, type ParsedRecord } from './formats/common.js';
import { parseLectern } from './formats/lectern-jsonl.js';
import { looksLikeOpenAlex, parseOpenAlex } from './formats/openalex.js';
import { looksLikeStackExchange, parseStackExchange } from './formats/stackexchange.js';
import { dumpRows, StackExchangeDumpMapper } from './formats/stackexchange-dump.js';
import { recognizedRecord, type ConvertedFile } from './recognized-file.js';

/** The outcome of ingesting one converted file (`lectern ingest --recognize`). */
export interface RecognizedIngestReport {
  file: string;
  id: string;
  title: string;
  pages: number;
  grade: string;
  score: number;
  /** `inserted`, `updated` or `unchanged`. */
  outcome: 'inserted' | 'updated' | 'unchanged';
  warnings: string[];
}

export { INGEST_FORMATS, type IngestFormat } from './ingest-formats.js';
import type { IngestFormat } from './ingest-formats.js';

export interface IngestProgress {
  file: string;
  bytesRead: number;
  bytesTotal: number;
  lines: number;
  inserted: number;
  updated: number;
  unchanged: number;
  failed: number;
}

export interface IngestOptions {
  format?: IngestFormat;
  /**
   * Stack Exchange dumps: the site's host name (`ai.stackexchange.com`), for post URLs and ids; by
   * default the name of the directory holding Posts.xml when it is a host name.
   */
  site?: string;
  /** Records per store transaction (default 500). */
  batchSize?: number;
  onProgress?: (p: IngestProgress) => void;
  /** Called for each bad line (1-based line number). */
  onLineError?: (line: number, message: string) => void;
  signal?: AbortSignal;
}

export type IngestReport = IngestProgress & {
  errors: { line: number; message: string }[];
  /** Stack Exchange dumps: the site, and the Users.xml read for authors' names (null when none was beside Posts.xml). */
  site?: string;
  usersFile?: string | null;
};

/** One record of an input file: a raw object, null for a line or row that holds none, or an error. */
type SourceRecord = { number: number; bytesRead: number } & ({ raw: Record<string, unknown> | null; error?: undefined } | { error: string; raw?: undefined });

/**
 * Called after each committed batch with the ids written, and once more with `final: true` when a file
 * is done (the indexer hooks in here: it may defer making batches searchable until the final call).
 */
export type BatchCommitted = (ids: readonly string[], final: boolean) => Promise<void> | void;

const MAX_REPORTED_ERRORS = 100;
/** A file whose first this-many records all fail is not of the format: ingest stops with one message. */
const FIRST_RECORDS_ALL_BAD = 20;

/** What a file given to plain ingest is, from its first bytes. */
type InputKind = 'jsonl' | 'xml';

const startsWith = (b: Uint8Array, sig: string) => b.length >= sig.length && [...sig].every((c, i) => b[i] === c.charCodeAt(0));

/** The input kind, or an AppError that says in one line what the file is and what to do instead. */
export function recogniseInput(path: string, head: Uint8Array): InputKind {
  const recognize = (what: string) =>
    new AppError(
      'unsupported_format',
      `${path} is ${what}. Plain \`ingest\` reads JSONL records or a Stack Exchange Posts.xml; to convert PDF, EPUB and DJVU files into documents use \`lectern ingest --recognize ${path}\`.`,
    );
  if (startsWith(head, '%PDF')) throw recognize('a PDF');
  if (startsWith(head, 'AT&TFORM')) throw recognize('a DJVU file');
  if (startsWith(head, 'PK\u0003\u0004')) {
    if (Buffer.from(head.subarray(30, 58)).toString('latin1') === 'mimetypeapplication/epub+zip') throw recognize('an EPUB');
    throw new AppError('unsupported_format', `${path} is a ZIP archive: unpack it and ingest the JSONL (or Posts.xml) inside; if it is an EPUB, convert it with \`lectern ingest --recognize ${path}\`.`);
  }
  if (startsWith(head, '7z\u00bc\u00af\u0027\u001c')) {
    throw new AppError('unsupported_format', `${path} is a 7-Zip archive (Stack Exchange dumps come so): unpack it (7z x ${path}) and ingest the Posts.xml inside.`);
  }
  const text = Buffer.from(head).toString('utf8').replace(/^\uFEFF/, '').trimStart();
  return text.startsWith('<') ? 'xml' : 'jsonl';
}

/** The site of a Stack Exchange dump: the directory holding Posts.xml when it is named like a host. */
export function siteFromPath(path: string): string | null {
  const parts = path.split(/[\\/]/);
  const dir = parts[parts.length - 2];
  return dir && /^[a-z0-9-]+(\.[a-z0-9-]+)+$/i.test(dir) ? dir.toLowerCase() : null;
}

/** Picks the parser for a record (format `auto` sniffs each line's shape). */
export function parseRecord(raw: Record<string, unknown>, format: IngestFormat): ParsedRecord {
  switch (format) {
    case 'openalex':
      return parseOpenAlex(raw);
    case 'beir':
      return parseBeir(raw);
    case 'stackexchange':
      return parseStackExchange(raw);
    case 'lectern':
      return parseLectern(raw);
    case 'auto':
      if (looksLikeOpenAlex(raw)) return parseOpenAlex(raw);
      if (looksLikeStackExchange(raw)) return parseStackExchange(raw);
      if (looksLikeBeir(raw)) return parseBeir(raw);
      return parseLectern(raw);
  }
}

function formatOf(ref: OriginalRef): OriginalFormat | null {
  const m = ref.mediaType?.toLowerCase();
  if (m === 'application/pdf' || /\.pdf$/i.test(ref.path)) return 'pdf';
  if (m === 'application/epub+zip' || /\.epub$/i.test(ref.path)) return 'epub';
  if (m === 'image/vnd.djvu' || m === 'image/x-djvu' || /\.djvu?$/i.test(ref.path)) return 'djvu';
  return null;
}

export class IngestService {
  constructor(
    private readonly store: DocumentStore,
    private readonly blobs: BlobStore,
    private readonly files: SourceFiles,
    private readonly clock: Clock,
    private readonly onBatch: BatchCommitted = () => {},
  ) {}

  /**
   * Ingests one file: JSONL records (`.gz` allowed) or a Stack Exchange dump's Posts.xml (with the
   * Users.xml beside it). A file that is missing, a directory, or a PDF/EPUB/DJVU/archive is refused
   * with an AppError saying so in one line, before anything is read or written; so is a file whose first
   * records are all bad (it is not of the format).
   */
  async ingestFile(path: string, options: IngestOptions = {}): Promise<IngestReport> {
    const kind = await this.files.kind(path);
    if (kind === 'missing') throw new AppError('not_found', `${path}: no such file.`);
    if (kind === 'directory') throw new AppError('bad_request', `${path} is a directory: give the files in it (JSONL files, or DIR/Posts.xml of a Stack Exchange dump).`);
    const format = options.format ?? 'auto';
    const input = recogniseInput(path, await this.files.head(path, 4096));
    if (input === 'xml') {
      if (format !== 'auto' && format !== 'stackexchange') throw new AppError('unsupported_format', `${path} is XML; --format ${format} reads JSONL. XML is read as a Stack Exchange dump's Posts.xml.`);
      return this.#ingestStackExchangeDump(path, options);
    }
    return this.#ingest(path, this.#jsonlRecords(path), format, options);
  }

  /** The JSONL lines of a file as raw records (or a per-line error). */
  async *#jsonlRecords(path: string): AsyncIterable<SourceRecord> {
    for await (const line of this.files.lines(path)) {
      if (line.text.trim() === '') {
        yield { number: line.number, bytesRead: line.bytesRead, raw: null };
        continue;
      }
      let raw: unknown;
      try {
        raw = JSON.parse(line.text);
      } catch (e) {
        yield { number: line.number, bytesRead: line.bytesRead, error: `not JSON: ${(e as Error).message}` };
        continue;
      }
      if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) yield { number: line.number, bytesRead: line.bytesRead, error: 'not a JSON object' };
      else yield { number: line.number, bytesRead: line.bytesRead, raw: raw as Record<string, unknown> };
    }
  }

  /** A Stack Exchange dump: Users.xml beside Posts.xml first (names), then the posts, streamed. */
  async #ingestStackExchangeDump(path: string, options: IngestOptions): Promise<IngestReport> {
    const site = options.site ?? siteFromPath(path);
    if (!site) {
      throw new AppError('bad_request', `${path}: which Stack Exchange site is this dump of? Give it with --site (e.g. --site ai.stackexchange.com), or keep Posts.xml in a directory named after the site.`);
    }
    const usersPath = this.files.resolveBeside(path, path.endsWith('.gz') ? 'Users.xml.gz' : 'Users.xml');
    const users = new Map<number, string>();
    if ((await this.files.kind(usersPath)) === 'file') {
      try {
        for await (const { row } of dumpRows(this.files.textChunks(usersPath), 'users')) {
          if (row.Id !== undefined && row.DisplayName !== undefined) users.set(Number(row.Id), row.DisplayName);
        }
      } catch (e) {
        throw new AppError('unprocessable', `${usersPath} is not a Stack Exchange Users.xml: ${(e as Error).message}`);
      }
    }
    const mapper = new StackExchangeDumpMapper(site, users);
    const files = this.files;
    async function* records(): AsyncIterable<SourceRecord> {
      try {
        for await (const item of dumpRows(files.textChunks(path), 'posts')) {
          yield { number: item.number, bytesRead: item.bytesRead, raw: mapper.map(item.row) };
        }
      } catch (e) {
        throw new AppError('unprocessable', `${path} is not a Stack Exchange Posts.xml: ${(e as Error).message}`);
      }
    }
    const report = await this.#ingest(path, records(), 'stackexchange', options);
    return { ...report, usersFile: users.size > 0 ? usersPath : null, site };
  }

  /** The batch loop shared by every input: parse, copy originals, upsert in batches, report. */
  async #ingest(path: string, source: AsyncIterable<SourceRecord>, format: IngestFormat, options: IngestOptions): Promise<IngestReport> {
    const batchSize = options.batchSize ?? 500;
    const report: IngestReport = { file: path, bytesRead: 0, bytesTotal: await this.files.size(path), lines: 0, inserted: 0, updated: 0, unchanged: 0, failed: 0, errors: [] };
    let good = 0;
    const fail = (line: number, message: string) => {
      report.failed++;
      if (report.errors.length < MAX_REPORTED_ERRORS) report.errors.push({ line, message });
      options.onLineError?.(line, message);
      if (good === 0 && report.failed >= FIRST_RECORDS_ALL_BAD) {
        const first = report.errors[0]!;
        throw new AppError('unprocessable', `${path}: none of the first ${report.failed} records could be read as ${format === 'auto' ? 'JSONL records' : `${format} records`} (line ${first.line}: ${first.message}); nothing more was read.`);
      }
    };
    let batch: DocumentRecord[] = [];
    const flush = async () => {
      if (batch.length === 0) return;
      const r = await this.store.upsertMany(batch, nowSeconds(this.clock));
      report.inserted += r.inserted;
      report.updated += r.updated;
      report.unchanged += r.unchanged;
      await this.onBatch(batch.map((d) => d.id), false);
      batch = [];
      options.onProgress?.({ ...report });
    };

    for await (const item of source) {
      if (options.signal?.aborted) break;
      report.lines = item.number;
      report.bytesRead = item.bytesRead;
      if (item.error !== undefined) {
        fail(item.number, item.error);
        continue;
      }
      if (item.raw === null) continue;
      try {
        const parsed = parseRecord(item.raw, format);
        parsed.record.originals = await this.#storeOriginals(path, parsed);
        const dup = batch.findIndex((d) => d.id === parsed.record.id);
        if (dup >= 0) batch.splice(dup, 1);
        batch.push(parsed.record);
        good++;
      } catch (e) {
        if (e instanceof RecordError) fail(item.number, e.message);
        else throw e;
        continue;
      }
      if (batch.length >= batchSize) await flush();
    }
    await flush();
    await this.onBatch([], true);
    report.bytesRead = report.bytesTotal;
    options.onProgress?.({ ...report });
    return report;
  }

  /**
   * Converts one PDF, EPUB or DJVU file with `recognize` and stores it as a document (its file as the
   * original). Conversion errors (RecognitionError) propagate; nothing is written then.
   */
  async ingestRecognizedFile(path: string, recognize: (bytes: Uint8Array) => Promise<ConvertedFile>): Promise<RecognizedIngestReport> {
    const bytes = await this.files.read(path);
    const converted = await recognize(bytes);
    const format = converted.report.input.format;
    const key = `originals/${converted.sha256}.${format}`;
    const stored = (await this.blobs.stat(key)) ?? (await this.blobs.put(key, bytes));
    const record = recognizedRecord(path, bytes, converted, key, Math.floor(stored.modifiedMs / 1000));
    const r = await this.store.upsertMany([record], nowSeconds(this.clock));
    await this.onBatch([record.id], true);
    const x = record.extra.recognition as { pages: number; grade: string; score: number; warnings: string[] };
    return {
      file: path,
      id: record.id,
      title: record.title,
      pages: x.pages,
      grade: x.grade,
      score: x.score,
      outcome: r.inserted > 0 ? 'inserted' : r.updated > 0 ? 'updated' : 'unchanged',
      warnings: x.warnings,
    };
  }

  /** Copies the files a record names into the blob store (content-addressed by SHA-256). */
  async #storeOriginals(inputFile: string, parsed: ParsedRecord): Promise<OriginalFile[]> {
    const out: OriginalFile[] = [];
    for (const ref of parsed.originals) {
      const format = formatOf(ref);
      if (!format) throw new RecordError(`record ${parsed.record.id}: original ${ref.path} is not PDF, EPUB or DJVU`);
      const path = this.files.resolveBeside(inputFile, ref.path);
      if (!(await this.files.exists(path))) throw new RecordError(`record ${parsed.record.id}: original ${ref.path} not found beside the input file`);
      const bytes = await this.files.read(path);
      const sha256 = createHash('sha256').update(bytes).digest('hex');
      if (ref.sha256 && ref.sha256 !== sha256) {
        throw new RecordError(`record ${parsed.record.id}: original ${ref.path} has SHA-256 ${sha256}, the record says ${ref.sha256}`);
      }
      // Content-addressed: an unchanged file is not rewritten, so re-ingesting leaves the record unchanged.
      const key = `originals/${sha256}.${format}`;
      const stored = (await this.blobs.stat(key)) ?? (await this.blobs.put(key, bytes));
      out.push({
        format,
        mediaType: ORIGINAL_MEDIA_TYPES[format],
        blobKey: key,
        bytes: stored.bytes,
        sha256,
        license: ref.license,
        storedAt: Math.floor(stored.modifiedMs / 1000),
      });
    }
    return out;
  }
}
