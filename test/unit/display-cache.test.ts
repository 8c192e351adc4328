// The display record cache (ADR 0135): bounded LRU (by records and by estimated bytes, ADR 0370), invalidation by id, no stale fill after an
// invalidation that raced a read, and the work-linked store invalidating on its own writes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { toDisplayDocument, type DisplayDocument, type DisplayDocumentWithText } from '../../src/domain/display-document.js';
import { bodyBytes, DisplayRecordCache, recordBytes } from '../../src/documents/display-cache.js';
import { WorkLinkedDocumentStore } from '../../src/documents/work-links.js';
import { openMemorySqlite } from '../helpers/storage.js';
import { sampleDocument } from '../contract/sample-document.js';

const NONE: ReadonlySet<string> = new Set();
const doc = (id: string, title = `T ${id}`): DisplayDocument =>
  toDisplayDocument({ ...sampleDocument(id, { title }), seq: 1, workKey: id, createdAt: 1, updatedAt: 1 });

function loader(titles: Map<string, string>) {
  const calls: string[][] = [];
  const load = async (ids: string[]) => {
    calls.push(ids);
    return new Map(ids.filter((id) => titles.has(id)).map((id) => [id, doc(id, titles.get(id))]));
  };
  return { calls, load };
}

test('display cache: serves repeats from memory, evicts the least recently used beyond capacity', async () => {
  const cache = new DisplayRecordCache(2);
  const { calls, load } = loader(new Map([['a', 'A'], ['b', 'B'], ['c', 'C']]));
  assert.deepEqual([...(await cache.getMany(['a', 'b', 'a'], NONE, load)).keys()].sort(), ['a', 'b']);
  assert.deepEqual(calls, [['a', 'b']]);
  await cache.getMany(['a'], NONE, load); // a is now the most recent
  await cache.getMany(['c'], NONE, load); // evicts b
  assert.equal(cache.size, 2);
  calls.length = 0;
  await cache.getMany(['a', 'b', 'c'], NONE, load);
  assert.deepEqual(calls, [['b']]);
  assert.equal(cache.misses, 4);
  assert.equal(cache.hits, 3);
});

test('display cache: unknown ids are not cached; invalidate and clear drop entries', async () => {
  const titles = new Map([['a', 'A']]);
  const cache = new DisplayRecordCache(10);
  const { calls, load } = loader(titles);
  assert.equal((await cache.getMany(['a', 'x'], NONE, load)).size, 1);
  titles.set('a', 'A2');
  assert.equal((await cache.getMany(['a'], NONE, load)).get('a')!.title, 'A', 'cached');
  cache.invalidate(['a']);
  assert.equal((await cache.getMany(['a'], NONE, load)).get('a')!.title, 'A2', 'reloaded after invalidation');
  cache.clear();
  assert.equal(cache.size, 0);
  assert.deepEqual(calls.map((c) => c.join()), ['a,x', 'a']);
});

test('display cache: a read that raced an invalidation returns its answer but does not fill the cache', async () => {
  const cache = new DisplayRecordCache(10);
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const slow = async (ids: string[]) => {
    await gate;
    return new Map(ids.map((id) => [id, doc(id, 'old')]));
  };
  const pending = cache.getMany(['a'], NONE, slow);
  cache.invalidate(['a']); // the record was written while the read was in flight
  release();
  assert.equal((await pending).get('a')!.title, 'old');
  assert.equal(cache.size, 0);
});

test('display cache: capacity 0 is off; records handed out are frozen', async () => {
  const off = new DisplayRecordCache(0);
  const { calls, load } = loader(new Map([['a', 'A']]));
  await off.getMany(['a'], NONE, load);
  await off.getMany(['a'], NONE, load);
  assert.equal(calls.length, 2);
  const on = new DisplayRecordCache(1);
  const got = (await on.getMany(['a'], NONE, load)).get('a')!;
  assert.ok(Object.isFrozen(got));
  assert.throws(() => new DisplayRecordCache(-1), RangeError);
});

test('work-linked store: its own writes and deletes invalidate the display cache', async () => {
  const fx = await openMemorySqlite();
  try {
    const cache = new DisplayRecordCache(100);
    const works = new WorkLinkedDocumentStore(fx.storage.documents, cache);
    await works.upsertMany([sampleDocument('D1')], 1000);
    assert.equal((await works.getDisplayMany(['D1'])).get('D1')!.title, 'Title of D1');
    await works.upsertMany([sampleDocument('D1', { title: 'Changed' })], 2000);
    assert.equal((await works.getDisplayMany(['D1'])).get('D1')!.title, 'Changed');
    await works.delete('D1', 3000);
    assert.equal((await works.getDisplayMany(['D1'])).size, 0);
  } finally {
    await fx.dispose();
  }
});

test('display cache: a change drops the entries of its work and those whose links name it; a record with relations clears all', async () => {
  const cache = new DisplayRecordCache(100);
  const linked = (id: string, workKey: string, versions: string[], notices: string[] = []): DisplayDocument => ({
    ...doc(id),
    workKey,
    versions: versions.map((v) => ({ id: v, uris: [], type: null, issuedAt: null, title: v })),
    notices: notices.map((n) => ({ kind: 'retraction' as const, uri: null, documentId: n })),
  });
  const fill = () =>
    cache.getMany(['a', 'b', 'c', 'd'], NONE, async () => new Map([['a', linked('a', 'W1', ['b'])], ['b', linked('b', 'W1', ['a'])], ['c', linked('c', 'W2', [], ['n'])], ['d', linked('d', 'W3', [])]]));
  await fill();
  cache.invalidateChanges([{ id: 'x', doc: { workKey: 'W1', relations: [] } }]); // x joined work W1
  assert.equal(cache.size, 2);
  cache.invalidateChanges([{ id: 'n' }]); // the notice of c was deleted
  assert.equal(cache.size, 1);
  cache.invalidateChanges([{ id: 'zz', doc: { workKey: 'W9', relations: [] } }]);
  assert.equal(cache.size, 1, 'an unrelated change keeps d');
  await fill();
  cache.invalidateChanges([{ id: 'r', doc: { workKey: 'W9', relations: [{ kind: 'retraction', uri: 'doi://10.1/x' }] } }]);
  assert.equal(cache.size, 0, 'a notice can attach to any work');
  // notices themselves are not cached
  await cache.getMany(['n1'], NONE, async () => new Map([['n1', { ...doc('n1'), noticeKind: 'retraction' as const }]]));
  assert.equal(cache.size, 0);
});

test('display cache: full texts asked for are cached with their record and invalidated with it', async () => {
  const cache = new DisplayRecordCache(10);
  const asked: string[][] = [];
  const load = async (ids: string[], text: string[]) => {
    asked.push([...ids, '|', ...text]);
    return new Map(ids.map((id): [string, DisplayDocumentWithText] => [id, { ...doc(id), hasFullText: id !== 'none', ...(text.includes(id) && id !== 'none' ? { fullText: `body of ${id}` } : {}) }]));
  };
  const a1 = await cache.getMany(['a', 'none'], new Set(['a', 'none']), load);
  assert.equal(a1.get('a')!.fullText, 'body of a');
  assert.equal(a1.get('none')!.fullText, undefined);
  await cache.getMany(['a', 'none'], new Set(['a', 'none']), load);
  await cache.getMany(['a'], NONE, load);
  assert.deepEqual(asked, [['a', 'none', '|', 'a', 'none']], 'text and the lack of it are both cached');
  assert.equal((await cache.getMany(['a'], NONE, load)).get('a')!.fullText, undefined, 'no text unless asked for');
  assert.ok(!('fullText' in (await cache.getMany(['a'], NONE, load)).get('a')!));
  cache.invalidate(['a']);
  await cache.getMany(['a'], new Set(['a']), load);
  assert.equal(asked.length, 2);
  // a record cached without its text is loaded again when its text is asked for
  await cache.getMany(['b'], NONE, load);
  assert.equal((await cache.getMany(['b'], new Set(['b']), load)).get('b')!.fullText, 'body of b');
  assert.deepEqual(asked.slice(2), [['b', '|'], ['b', '|', 'b']]);
});

test('display cache: full texts count in the byte budget; a very long one is never cached', async () => {
  // 8M bytes: 400,000-character ASCII bodies are ~400 KB each, so about 20 fit (with their records)
  const cache = new DisplayRecordCache(1000, 8_000_000);
  let loads = 0;
  const load = async (ids: string[]) => {
    loads++;
    return new Map(ids.map((id): [string, DisplayDocumentWithText] => [id, { ...doc(id), hasFullText: true, fullText: (id === 'book' ? 'y' : 'x').repeat(id === 'book' ? 600_000 : 400_000) }]));
  };
  const text = (id: string) => new Set([id]);
  for (let i = 0; i < 30; i++) await cache.getMany([`d${i}`], text(`d${i}`), load); // 12M characters offered
  assert.ok(cache.bytes <= 8_000_000 && cache.bytes > 7_000_000, `${cache.bytes}`);
  assert.ok(cache.size >= 17 && cache.size <= 20, `${cache.size} held`);
  loads = 0;
  await cache.getMany(['d29'], text('d29'), load);
  assert.equal(loads, 0, 'the newest is held');
  await cache.getMany(['d0'], text('d0'), load);
  assert.equal(loads, 1, 'the oldest went');
  await cache.getMany(['book'], text('book'), load);
  await cache.getMany(['book'], text('book'), load);
  assert.equal(loads, 3, 'a text over 1/16 of the budget is not cached');
  assert.equal((await cache.getMany(['book'], NONE, load)).size, 1);
  assert.equal(loads, 3, 'its record is');
});

test('display cache: bounded by the bytes of its entries, least recently used first; long records hold fewer', async () => {
  const sized = (id: string, chars: number): DisplayDocument => ({ ...doc(id), abstract: 'a'.repeat(chars) });
  const one = recordBytes(sized('r0', 10_000));
  assert.ok(one > 2 * 10_000 && one < 3 * 10_000, `a 10,000-character abstract: its string and its wire JSON (${one})`);
  const cache = new DisplayRecordCache(1000, 5 * one + 100);
  const load = (chars: number) => async (ids: string[]) => new Map(ids.map((id) => [id, sized(id, chars)]));
  for (let i = 0; i < 8; i++) {
    await cache.getMany([`r${i}`], NONE, load(10_000));
    if (i === 1) await cache.getMany(['r0'], NONE, load(10_000)); // r0 used again: r1 is now the older
    assert.ok(cache.bytes <= cache.maxBytes);
  }
  assert.equal(cache.size, 5);
  assert.equal(cache.bytes, 5 * one);
  const calls: string[] = [];
  const probe = async (ids: string[]) => {
    calls.push(...ids);
    return load(10_000)(ids);
  };
  // r0 was used after r1 but before r2..r7: it went with r1, r2 (the three least recently used)
  for (const id of ['r7', 'r6', 'r5', 'r4', 'r3']) await cache.getMany([id], NONE, probe);
  assert.deepEqual(calls, [], 'the five most recently used are held');
  // the same budget holds many more short records
  for (let i = 0; i < 200; i++) await cache.getMany([`s${i}`], NONE, load(100));
  assert.ok(cache.size > 4 * 5, `${cache.size} short records against 5 long ones`);
  assert.ok(cache.bytes <= cache.maxBytes);
  // invalidations and clear give the bytes back
  cache.invalidate([...Array(200).keys()].map((i) => `s${i}`));
  assert.equal(cache.size, 0);
  assert.equal(cache.bytes, 0);
  await cache.getMany(['r0'], NONE, load(10_000));
  cache.clear();
  assert.equal(cache.bytes, 0);
  // a record larger than the whole budget is served, not kept
  const tiny = new DisplayRecordCache(10, 1000);
  assert.equal((await tiny.getMany(['big'], NONE, load(10_000))).size, 1);
  assert.equal(tiny.size, 0);
  assert.equal(tiny.bytes, 0);
  // 0 bytes: off
  const off = new DisplayRecordCache(10, 0);
  const { calls: offCalls, load: offLoad } = loader(new Map([['a', 'A']]));
  await off.getMany(['a'], NONE, offLoad);
  await off.getMany(['a'], NONE, offLoad);
  assert.equal(offCalls.length, 2);
  assert.throws(() => new DisplayRecordCache(10, -1), RangeError);
});

test('display cache: a body text and the record made with it are counted when kept; two-byte texts count double', async () => {
  assert.ok(bodyBytes('x'.repeat(1000)) >= 1000 && bodyBytes('x'.repeat(1000)) < 1100);
  assert.ok(bodyBytes('\u4e2d'.repeat(1000)) >= 2000, 'UTF-16 text');
  const cache = new DisplayRecordCache(10, 10_000_000);
  const load = async (ids: string[], text: string[]) =>
    new Map(ids.map((id): [string, DisplayDocumentWithText] => [id, { ...doc(id), hasFullText: true, ...(text.includes(id) ? { fullText: 'z'.repeat(50_000) } : {}) }]));
  await cache.getMany(['a'], NONE, load);
  const plain = cache.bytes;
  assert.equal(plain, recordBytes((await cache.getMany(['a'], NONE, load)).get('a')!));
  cache.invalidate(['a']);
  await cache.getMany(['a'], new Set(['a']), load);
  assert.ok(cache.bytes > plain + 50_000, `with its body: ${cache.bytes} against ${plain}`);
  assert.ok(cache.bytes < plain * 2 + 51_000);
});

test('display cache: a record read with its text is the same object at every hit, renewed when the entry or its body changes', async () => {
  const titles = new Map([['a', 'A'], ['b', 'B']]);
  const cache = new DisplayRecordCache(10);
  const load = async (ids: string[], text: string[]) =>
    new Map(ids.map((id): [string, DisplayDocumentWithText] => [id, { ...doc(id, titles.get(id)), workKey: 'w', hasFullText: true, ...(text.includes(id) ? { fullText: `body of ${id} ${titles.get(id)}` } : {}) }]));
  const text = new Set(['a']);
  await cache.getMany(['a', 'b'], text, load);
  const first = (await cache.getMany(['a'], text, load)).get('a')!;
  assert.equal(first.fullText, 'body of a A');
  assert.ok(Object.isFrozen(first));
  assert.equal((await cache.getMany(['a'], text, load)).get('a'), first, 'the same object');
  const plain = (await cache.getMany(['a'], NONE, load)).get('a')!;
  assert.ok(!('fullText' in plain));
  assert.equal((await cache.getMany(['a'], NONE, load)).get('a'), plain);
  // a change in a's work drops a's entry (and its body): the next read is a new object with the new fields
  titles.set('a', 'A2');
  cache.invalidateChanges([{ id: 'b', doc: { workKey: 'w' } }]);
  assert.equal((await cache.getMany(['a'], text, load)).get('a')!.title, 'A2', 'reloaded');
  const after = (await cache.getMany(['a'], text, load)).get('a')!;
  assert.notEqual(after, first);
  assert.equal(after.title, 'A2');
  assert.equal(after.fullText, 'body of a A2');
  assert.equal((await cache.getMany(['a'], text, load)).get('a'), after);
  // a's own change drops both
  titles.set('a', 'A3');
  cache.invalidate(['a']);
  const again = (await cache.getMany(['a'], text, load)).get('a')!;
  assert.equal(again.title, 'A3');
  assert.equal(again.fullText, 'body of a A3');
  cache.clear();
  titles.set('a', 'A4');
  assert.equal((await cache.getMany(['a'], text, load)).get('a')!.fullText, 'body of a A4');
});

test('display cache: a record loaded with its text is the object later hits return', async () => {
  const cache = new DisplayRecordCache(10);
  const load = async (ids: string[], text: string[]) =>
    new Map(ids.map((id): [string, DisplayDocumentWithText] => [id, { ...doc(id, 'T'), hasFullText: true, ...(text.includes(id) ? { fullText: `body of ${id}` } : {}) }]));
  const text = new Set(['a']);
  const loaded = (await cache.getMany(['a'], text, load)).get('a')!;
  assert.equal(loaded.fullText, 'body of a');
  assert.ok(Object.isFrozen(loaded));
  assert.equal((await cache.getMany(['a'], text, load)).get('a'), loaded, 'the first hit returns the loaded object');
  // a body too long to keep: nothing kept with it, the next read loads again
  const long = new DisplayRecordCache(10, 8_000_000);
  const longLoad = async (ids: string[], t: string[]) =>
    new Map(ids.map((id): [string, DisplayDocumentWithText] => [id, { ...doc(id, 'T'), hasFullText: true, ...(t.includes(id) ? { fullText: 'x'.repeat(600_000) } : {}) }]));
  const first = (await long.getMany(['a'], text, longLoad)).get('a')!;
  assert.notEqual((await long.getMany(['a'], text, longLoad)).get('a'), first);
});

test('display cache: with admitRepeats a record is kept from its second load on, within capacity ids remembered', async () => {
  const cache = new DisplayRecordCache(2);
  const { calls, load } = loader(new Map([['a', 'A'], ['b', 'B'], ['c', 'C'], ['d', 'D']]));
  const read = (ids: string[]) => cache.getMany(ids, NONE, load, { admitRepeats: true });
  await read(['a']);
  await read(['a']); // second load: kept
  await read(['a']); // from memory
  assert.deepEqual(calls, [['a'], ['a']]);
  assert.equal(cache.size, 1);
  // loaded once each: remembered (ids only), not kept; b is forgotten past capacity, so loaded twice more
  await read(['b']);
  await read(['c']);
  await read(['d']);
  await read(['b']);
  assert.equal(cache.size, 1, 'only a is kept');
  await read(['d']); // its second load within the remembered ids: kept
  await read(['d']);
  assert.deepEqual(calls.slice(2), [['b'], ['c'], ['d'], ['b'], ['d']]);
  assert.equal(cache.size, 2);
  // remembered through a clear (a search thread's snapshot): kept at its first load after it
  cache.clear();
  await read(['d']);
  await read(['d']);
  assert.deepEqual(calls.slice(7), [['d']]);
  // without the option every load fills, as before
  await cache.getMany(['c'], NONE, load);
  await cache.getMany(['c'], NONE, load);
  assert.deepEqual(calls.slice(8), [['c']]);
});
