// The relay's routing and cutting (cluster/outbox-relay.ts): pure functions over outbox entries.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cutBatches, routeEntries } from '../../src/cluster/outbox-relay.js';
import { shardOfWork } from '../../src/domain/shard-routing.js';
import type { OutboxEntry } from '../../src/ports/shard-log.js';
import type { StoredDocument } from '../../src/domain/document.js';
import { doc } from '../helpers/documents.js';

const stored = (id: string, seq: number, workKey: string, extra: Partial<StoredDocument> = {}): StoredDocument => ({ ...doc(id), seq, workKey, createdAt: 1, updatedAt: 1, ...extra });

test('entries route to their work\'s shard; a move adds a deletion on the shard left; superseded entries carry no state', () => {
  const S = 4;
  const a = 'w-a';
  const b = ['w-b1', 'w-b2', 'w-b3', 'w-b4', 'w-b5'].find((k) => shardOfWork(k, S) !== shardOfWork(a, S))!;
  const entries: OutboxEntry[] = [
    { seq: 1, id: 'x', oldWorkKey: null, workKey: a, change: null },
    { seq: 2, id: 'y', oldWorkKey: null, workKey: a, change: { deleted: false, seq: 2, doc: stored('y', 2, a) } },
    { seq: 3, id: 'x', oldWorkKey: a, workKey: b, change: { deleted: false, seq: 3, doc: stored('x', 3, b) } },
    { seq: 4, id: 'y', oldWorkKey: a, workKey: a, change: { deleted: true, seq: 4, id: 'y' } },
  ];
  const routed = routeEntries(entries, S);
  const sa = shardOfWork(a, S);
  const sb = shardOfWork(b, S);
  assert.deepEqual(
    routed.get(sa)!.map((c) => [c.seq, c.deleted]),
    [[2, false], [3, true], [4, true]],
  );
  assert.deepEqual(routed.get(sb)!.map((c) => [c.seq, c.deleted, 'doc' in c ? c.doc.id : null]), [[3, false, 'x']]);
  assert.equal([...routed.values()].flat().filter((c) => c.seq === 1).length, 0, 'the superseded first entry sends nothing');
});

test('batches stay under the message size, keep order, and a record too large travels as a reference', () => {
  const changes = Array.from({ length: 50 }, (_, i) => ({ deleted: false as const, seq: i + 1, doc: stored(`d${i}`, i + 1, `d${i}`, { abstract: 'x'.repeat(300) }) }));
  changes.push({ deleted: false, seq: 51, doc: stored('huge', 51, 'huge', { fullText: 'y'.repeat(20_000) }) });
  const cut = cutBatches(2, changes, 8192);
  assert.ok(cut.length > 2);
  for (const { batch, msgId } of cut) {
    assert.ok(Buffer.byteLength(JSON.stringify(batch)) <= 8192, 'fits a message');
    assert.equal(msgId, `2:${batch.changes[0]!.seq}-${batch.changes[batch.changes.length - 1]!.seq}`);
  }
  assert.deepEqual(cut.flatMap((c) => c.batch.changes.map((x) => x.seq)), changes.map((c) => c.seq), 'every change once, in order');
  const last = cut[cut.length - 1]!.batch.changes.at(-1)!;
  assert.deepEqual(last, { deleted: false, seq: 51, id: 'huge', ref: true });
});
