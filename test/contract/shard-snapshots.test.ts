// The ports of shard snapshots (ADR 0255): SnapshotObjects over the NATS JetStream object store (skipped
// with the reason without a JetStream server) and LocalIndexFiles over a replica's index directories.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { FsLocalIndexFiles } from '../../src/adapters/fs/index-snapshot-files.js';
import { fsIndexDirectories } from '../../src/adapters/fs/index-directories.js';
import { NatsCluster } from '../../src/adapters/nats/nats-cluster.js';
import { INDEX_NAMES } from '../../src/domain/document.js';
import type { SnapshotObjects } from '../../src/ports/shard-snapshots.js';
import { IndexSet } from '../../src/search/index-set.js';
import { natsSkip, natsUrl, uniqueClusterName } from '../helpers/nats.js';
import { tempDir } from '../helpers/storage.js';
import { doc } from '../helpers/documents.js';

const skipNats = await natsSkip();

async function collect(data: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const c of data) parts.push(Buffer.from(c));
  return Buffer.concat(parts);
}

function pattern(n: number, seed: number): Uint8Array {
  const b = new Uint8Array(n);
  for (let i = 0; i < n; i++) b[i] = (i * 31 + seed) & 0xff;
  return b;
}

async function objectsContract(objects: SnapshotObjects): Promise<void> {
  // a 3.5 MiB object, handed over in 64 KiB pieces, comes back whole and in order
  const big = pattern(3.5 * 1024 * 1024, 7);
  await objects.put('shard-0/a/documents/seg-1', (async function* () {
    for (let off = 0; off < big.byteLength; off += 65_536) yield big.subarray(off, off + 65_536);
  })());
  await objects.put('shard-0/a/snapshot.json', (async function* () { yield new TextEncoder().encode('{}'); })());
  await objects.put('shard-1/b/documents/seg-1', (async function* () { yield pattern(10, 1); })());
  const got = await objects.get('shard-0/a/documents/seg-1');
  assert.ok(got);
  const back = await collect(got);
  assert.equal(back.byteLength, big.byteLength);
  assert.equal(createHash('sha256').update(back).digest('hex'), createHash('sha256').update(big).digest('hex'));
  assert.deepEqual((await objects.list('shard-0/')).map((o) => [o.key, o.bytes]).sort(), [['shard-0/a/documents/seg-1', big.byteLength], ['shard-0/a/snapshot.json', 2]]);
  assert.ok((await objects.list('shard-0/')).every((o) => Number.isFinite(o.mtimeMs) && o.mtimeMs > 0));
  assert.equal(await objects.get('shard-0/none'), null);
  await objects.delete('shard-0/a/documents/seg-1');
  assert.equal(await objects.get('shard-0/a/documents/seg-1'), null);
  assert.deepEqual((await objects.list('shard-0/')).map((o) => o.key), ['shard-0/a/snapshot.json']);
  // a replaced object reads as the new bytes
  await objects.put('shard-0/a/snapshot.json', (async function* () { yield new TextEncoder().encode('{"v":2}'); })());
  assert.equal((await collect((await objects.get('shard-0/a/snapshot.json'))!)).toString(), '{"v":2}');
}

test('SnapshotObjects: the NATS JetStream object store', { skip: skipNats ?? false, timeout: 120_000 }, async () => {
  const name = uniqueClusterName();
  const nats = await NatsCluster.connect({ servers: [natsUrl], name, replicas: 1, logMaxAgeMs: 3_600_000, membershipMaxAgeMs: 30_000 });
  try {
    await objectsContract(await nats.snapshotObjects());
  } finally {
    await nats.jsm.streams.delete(`OBJ_${name}-snapshots`).catch(() => undefined);
    await nats.close();
  }
});

test('LocalIndexFiles on disk: a pin survives the index deleting its files; staging checks paths and manifests and installs by rename', async () => {
  const tmp = tempDir('lectern-snapfiles-');
  try {
    const root = join(tmp.dir, 'index');
    // d0..d9, then d0..d9 deleted, then d10..d19
    const add = (i: number, seq: number) => ({ deleted: false as const, seq, doc: { ...doc(`d${i}`), seq, workKey: `d${i}` } as never });
    const changes = [...Array.from({ length: 10 }, (_, i) => add(i, i + 1)), ...Array.from({ length: 10 }, (_, i) => ({ deleted: true as const, seq: 11 + i, id: `d${i}` })), ...Array.from({ length: 10 }, (_, i) => add(10 + i, 21 + i))];
    let upto = 10;
    const source = { maxSeq: async () => upto, changesSince: async (after: number, limit: number) => changes.filter((c) => c.seq > after && c.seq <= upto).slice(0, limit) };
    const set = IndexSet.open(fsIndexDirectories(root), source, { nowMs: () => Date.now() });
    await set.catchUp();
    const local = new FsLocalIndexFiles(root, INDEX_NAMES);
    const pinned = local.pin();
    assert.deepEqual(Object.keys(pinned.indexes).sort(), [...INDEX_NAMES].sort());
    assert.equal(pinned.indexes.documents!.checkpoint?.split('@')[0], '10');
    const seg = pinned.files.find((f) => /^documents\/seg-/.test(f.path))!;
    // the index moves on: every document of the pinned segment is deleted, so the segment file goes
    upto = 30;
    await set.catchUp();
    assert.ok(!existsSync(join(root, seg.path)), 'the pinned segment was deleted by the index');
    const bytes = await collect(pinned.read(seg.path));
    assert.equal(bytes.byteLength, seg.bytes, 'still readable through the pin');
    pinned.release();

    const staging = local.stage();
    await assert.rejects(staging.write('../escape', (async function* () { yield new Uint8Array(1); })()), /not <index>\/<file>/);
    await assert.rejects(staging.write('other/seg-1', (async function* () { yield new Uint8Array(1); })()), /not <index>\/<file>/);
    // a manifest naming a file that is not staged is refused
    const again = local.pin();
    for (const f of again.files) {
      if (/^documents\/seg-/.test(f.path)) continue;
      const w = await staging.write(f.path, again.read(f.path));
      assert.equal(w.bytes, f.bytes);
    }
    assert.throws(() => staging.verify(), /names seg-\S+, which is not in the snapshot/);
    for (const f of again.files.filter((x) => /^documents\/seg-/.test(x.path))) await staging.write(f.path, again.read(f.path));
    again.release();
    staging.verify();
    // installed by rename into a fresh root: opens with the same checkpoint and documents
    const other = join(tmp.dir, 'other');
    const target = new FsLocalIndexFiles(other, INDEX_NAMES);
    const source2 = { maxSeq: async () => 0, changesSince: async () => [] };
    const set2 = IndexSet.open(fsIndexDirectories(other), source2, { nowMs: () => Date.now() });
    const st2 = target.stage();
    const pin3 = local.pin();
    for (const f of pin3.files) await st2.write(f.path, pin3.read(f.path));
    pin3.release();
    st2.verify();
    assert.equal(await set2.replace((name) => st2.installInto(name)), 30);
    assert.equal(set2.get('documents').stats().docs, 10);
    assert.ok(set2.get('documents').has('d15') && !set2.get('documents').has('d5'));
    st2.discard();
    staging.discard();
    set.close();
    set2.close();
  } finally {
    tmp.remove();
  }
});
