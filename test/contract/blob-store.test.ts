// The BlobStore port against both implementations: the filesystem (all-in-one) and PostgreSQL (a
// cluster's originals and uploads, reached by every node; issue 24). Skips PostgreSQL without DATABASE_URL.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { FsBlobStore } from '../../src/adapters/fs/fs-blob-store.js';
import { PostgresBlobStore } from '../../src/adapters/postgres/postgres-blob-store.js';
import { openPostgresStorage, type PostgresHandle } from '../../src/adapters/postgres/postgres-storage.js';
import type { BlobStore } from '../../src/ports/blob-store.js';
import type { Storage } from '../../src/ports/storage.js';
import { createTestSchema, databaseUrl, postgresSkip, tempDir } from '../helpers/storage.js';

async function text(s: NodeJS.ReadableStream): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const c of s) parts.push(Buffer.from(c as Uint8Array));
  return Buffer.concat(parts);
}

function suite(name: string, open: () => Promise<{ blobs: BlobStore; dispose(): Promise<void> }>, skip?: string) {
  describe(`BlobStore: ${name}`, { skip: skip ?? false }, () => {
    let blobs: BlobStore;
    let dispose: () => Promise<void>;
    before(async () => {
      ({ blobs, dispose } = await open());
    });
    after(async () => dispose());

    it('puts, stats, reads whole and in ranges, replaces, moves, lists a folder, deletes', async () => {
      const big = Buffer.alloc(2.5 * 1024 * 1024);
      for (let i = 0; i < big.length; i++) big[i] = (i * 31) % 251;
      async function* parts() {
        for (let i = 0; i < big.length; i += 300_000) yield new Uint8Array(big.subarray(i, i + 300_000));
      }
      const r = await blobs.put('originals/a.pdf', parts());
      assert.equal(r.bytes, big.length);
      assert.match(r.sha256, /^[0-9a-f]{64}$/);
      assert.equal((await blobs.stat('originals/a.pdf'))?.bytes, big.length);
      assert.ok((await text(blobs.read('originals/a.pdf'))).equals(big));
      const start = 1024 * 1024 - 10;
      assert.ok((await text(blobs.read('originals/a.pdf', { start, end: start + 2_000_000 }))).equals(big.subarray(start, start + 2_000_001)), 'a range across chunks');
      await blobs.put('originals/a.pdf', new Uint8Array([1, 2, 3]));
      assert.deepEqual([...(await text(blobs.read('originals/a.pdf')))], [1, 2, 3], 'replaced whole');
      await blobs.put('originals/sub/b.pdf', new Uint8Array([9]));
      await blobs.put('recognition/incoming/x', new Uint8Array([7, 7]));
      await blobs.move('recognition/incoming/x', 'originals/c.pdf');
      assert.equal(await blobs.stat('recognition/incoming/x'), null);
      assert.deepEqual([...(await text(blobs.read('originals/c.pdf')))], [7, 7]);
      assert.deepEqual((await blobs.list('originals/')).map((b) => [b.key, b.bytes]).sort(), [['originals/a.pdf', 3], ['originals/c.pdf', 2]], 'the folder only, not subfolders');
      await blobs.delete('originals/a.pdf');
      assert.equal(await blobs.stat('originals/a.pdf'), null);
      await assert.rejects(text(blobs.read('originals/a.pdf')), (e: NodeJS.ErrnoException) => e.code === 'ENOENT');
      await assert.rejects(async () => blobs.put('../escape', new Uint8Array([1])), /invalid blob key/);
      assert.equal(await blobs.sweepInterrupted(Date.now() - 3_600_000), 0);
    });

    it('a put that fails midway leaves the old blob', async () => {
      await blobs.put('keep/x', new Uint8Array([5]));
      async function* failing() {
        yield new Uint8Array([1, 2]);
        throw new Error('client went away');
      }
      await assert.rejects(blobs.put('keep/x', failing()), /client went away/);
      assert.deepEqual([...(await text(blobs.read('keep/x')))], [5]);
    });
  });
}

suite('filesystem', async () => {
  const tmp = tempDir();
  return { blobs: new FsBlobStore(tmp.dir), dispose: async () => tmp.remove() };
});

suite(
  'PostgreSQL',
  async () => {
    const schema = await createTestSchema(databaseUrl!);
    const storage: Storage & PostgresHandle = await openPostgresStorage(schema.url);
    return {
      blobs: new PostgresBlobStore(storage.pool),
      dispose: async () => {
        await storage.close();
        await schema.drop();
      },
    };
  },
  databaseUrl ? undefined : postgresSkip('PostgreSQL blob store'),
);
