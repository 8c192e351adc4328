// Ingest: reads JSONL records (OpenAlex, BEIR, Stack Exchange, Lectern), maps them to documents,
// copies originals into the blob store, and upserts in batches. Each batch is one store transaction,
// so a crash leaves every document fully in or absent; re-ingesting updates (same id) and never
// duplicates. A bad line is reported with its number and skipped.
import { createHash } from 'node:crypto';
import type { DocumentRecord, OriginalFile, OriginalFormat } from '../domain/document.js';
import { ORIGINAL_MEDIA_TYPES } from '../domain/document.js';
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

export const INGEST_FORMATS = ['auto', 'openalex', 'beir', 'stackexchange', 'lectern'] as const;
export type IngestFormat = (typeof INGEST_FORMATS)[number];

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
  /** Records per store transaction (default 500). */
  batchSize?: number;
  onProgress?: (p: IngestProgress) => void;
  /** Called for each bad line (1-based line number). */
  onLineError?: (line: number, message: string) => void;
  signal?: AbortSignal;
}

export type IngestReport = IngestProgress & { errors: { line: number; message: string }[] };

/**
 * Called after each committed batch with the ids written, and once more with `final: true` when a file
 * is done (the indexer hooks in here: it may defer making batches searchable until the final call).
 */
export type BatchCommitted = (ids: readonly string[], final: boolean) => Promise<void> | void;

const MAX_REPORTED_ERRORS = 100;

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

  /** Ingests one JSONL file (`.gz` allowed). */
  async ingestFile(path: string, options: IngestOptions = {}): Promise<IngestReport> {
    const format = options.format ?? 'auto';
    const batchSize = options.batchSize ?? 500;
    const report: IngestReport = { file: path, bytesRead: 0, bytesTotal: await this.files.size(path), lines: 0, inserted: 0, updated: 0, unchanged: 0, failed: 0, errors: [] };
    const fail = (line: number, message: string) => {
      report.failed++;
      if (report.errors.length < MAX_REPORTED_ERRORS) report.errors.push({ line, message });
      options.onLineError?.(line, message);
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

    for await (const line of this.files.lines(path)) {
      if (options.signal?.aborted) break;
      report.lines = line.number;
      report.bytesRead = line.bytesRead;
      if (line.text.trim() === '') continue;
      let raw: unknown;
      try {
        raw = JSON.parse(line.text);
      } catch (e) {
        fail(line.number, `not JSON: ${(e as Error).message}`);
        continue;
      }
      if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
        fail(line.number, 'not a JSON object');
        continue;
      }
      try {
        const parsed = parseRecord(raw as Record<string, unknown>, format);
        parsed.record.originals = await this.#storeOriginals(path, parsed);
        const dup = batch.findIndex((d) => d.id === parsed.record.id);
        if (dup >= 0) batch.splice(dup, 1);
        batch.push(parsed.record);
      } catch (e) {
        if (e instanceof RecordError) fail(line.number, e.message);
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
