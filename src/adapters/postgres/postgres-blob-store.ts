// Blobs in PostgreSQL (migration cluster/002): the BlobStore of a cluster, so an upload received by one
// api node is read by the worker that converts it and an original is served by any node (issue 24).
// A blob is a `blobs` row and its bytes in 1 MiB `blob_chunks`; put() writes them in one transaction,
// so readers see the old or the new blob, never a mix, and an interrupted write leaves nothing behind.
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import type pg from 'pg';
import type { BlobInfo, BlobStore } from '../../ports/blob-store.js';
import { withTransaction } from './postgres-pool.js';

const CHUNK = 1024 * 1024;

function checkKey(key: string): string {
  if (key === '' || key.includes('\0') || key.startsWith('/') || key.split('/').some((p) => p === '..' || p === '.' || p === '')) {
    throw new Error(`invalid blob key ${JSON.stringify(key)}`);
  }
  return key;
}

const notFound = (key: string) => Object.assign(new Error(`ENOENT: no such blob ${JSON.stringify(key)}`), { code: 'ENOENT' });

export class PostgresBlobStore implements BlobStore {
  constructor(private readonly pool: pg.Pool) {}

  async put(key: string, data: Uint8Array | AsyncIterable<Uint8Array>): Promise<BlobInfo & { sha256: string }> {
    checkKey(key);
    const hash = createHash('sha256');
    const modifiedMs = Date.now();
    return withTransaction(this.pool, async (tx) => {
      await tx.query('DELETE FROM blobs WHERE key = $1', [key]);
      await tx.query('INSERT INTO blobs (key, bytes, modified_ms) VALUES ($1, 0, $2)', [key, modifiedMs]);
      let bytes = 0;
      let n = 0;
      let pending: Buffer[] = [];
      let size = 0;
      const flush = async (all: boolean) => {
        while (size >= CHUNK || (all && size > 0)) {
          const buf = Buffer.concat(pending);
          const take = Math.min(CHUNK, buf.length);
          await tx.query('INSERT INTO blob_chunks (key, n, data) VALUES ($1, $2, $3)', [key, n++, buf.subarray(0, take)]);
          pending = take < buf.length ? [buf.subarray(take)] : [];
          size = buf.length - take;
        }
      };
      const chunks: AsyncIterable<Uint8Array> | Uint8Array[] = data instanceof Uint8Array ? [data] : data;
      for await (const chunk of chunks) {
        hash.update(chunk);
        bytes += chunk.byteLength;
        pending.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
        size += chunk.byteLength;
        await flush(false);
      }
      await flush(true);
      await tx.query('UPDATE blobs SET bytes = $2 WHERE key = $1', [key, bytes]);
      return { bytes, modifiedMs, sha256: hash.digest('hex') };
    });
  }

  async stat(key: string): Promise<BlobInfo | null> {
    const { rows } = await this.pool.query<{ bytes: number; modified_ms: number }>('SELECT bytes, modified_ms FROM blobs WHERE key = $1', [checkKey(key)]);
    return rows[0] ? { bytes: rows[0].bytes, modifiedMs: rows[0].modified_ms } : null;
  }

  read(key: string, range?: { start: number; end: number }): Readable {
    checkKey(key);
    const pool = this.pool;
    async function* chunks(): AsyncGenerator<Buffer> {
      const { rows } = await pool.query<{ bytes: number }>('SELECT bytes FROM blobs WHERE key = $1', [key]);
      if (!rows[0]) throw notFound(key);
      const start = range?.start ?? 0;
      const end = Math.min(range?.end ?? rows[0].bytes - 1, rows[0].bytes - 1);
      if (end < start) return;
      // one chunk per query: memory stays at a chunk however large the blob
      for (let n = Math.floor(start / CHUNK); n <= Math.floor(end / CHUNK); n++) {
        const r = await pool.query<{ data: Buffer }>('SELECT data FROM blob_chunks WHERE key = $1 AND n = $2', [key, n]);
        if (!r.rows[0]) throw notFound(key); // replaced or deleted while being read
        const base = n * CHUNK;
        yield r.rows[0].data.subarray(Math.max(0, start - base), Math.min(CHUNK, end - base + 1));
      }
    }
    return Readable.from(chunks(), { objectMode: false });
  }

  async delete(key: string): Promise<void> {
    await this.pool.query('DELETE FROM blobs WHERE key = $1', [checkKey(key)]);
  }

  async move(from: string, to: string): Promise<void> {
    checkKey(from);
    checkKey(to);
    if (from === to) return;
    await withTransaction(this.pool, async (tx) => {
      const { rowCount } = await tx.query('SELECT 1 FROM blobs WHERE key = $1 FOR UPDATE', [from]);
      if (rowCount !== 1) throw notFound(from);
      await tx.query('DELETE FROM blobs WHERE key = $1', [to]);
      await tx.query('UPDATE blobs SET key = $2 WHERE key = $1', [from, to]); // chunks follow (ON UPDATE CASCADE)
    });
  }

  async list(prefix: string): Promise<(BlobInfo & { key: string })[]> {
    const folder = prefix.replace(/\/?$/, '/');
    // the folder's own blobs, not those of its subfolders (as a directory listing)
    const { rows } = await this.pool.query<{ key: string; bytes: number; modified_ms: number }>(
      `SELECT key, bytes, modified_ms FROM blobs WHERE starts_with(key, $1) AND position('/' IN substr(key, length($1) + 1)) = 0 ORDER BY key`,
      [folder],
    );
    return rows.map((r) => ({ key: r.key, bytes: r.bytes, modifiedMs: r.modified_ms }));
  }

  async sweepInterrupted(_olderThanMs: number): Promise<number> {
    return 0; // an interrupted put rolled back: nothing is left behind
  }
}
