// The display layout of the DocumentStore port (issue 14, ADR 0135): `getDisplayMany` returns what a
// hit shows of each live record (every field but the full text and the cited works) and always equals
// the display form of `get(id)`: after inserts, updates, work merges (relabels), deletes and revivals,
// and after the migration back-fills records stored before the layout existed; with `withText` it adds
// the non-empty full texts of the hits that ask for them. `getTextWindows` slices full texts in Unicode
// scalar values (ADR 0335). Run on SQLite (file, :memory:) and PostgreSQL.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { toDisplayDocument } from '../../src/domain/display-document.js';
import type { Storage } from '../../src/ports/storage.js';
import type { StorageFactory } from '../helpers/storage.js';
import { sampleDocument } from './sample-document.js';

/** A store holding records written before core/003 (the layout dropped), and how to reopen it with every migration. */
export interface LegacyFixture {
  storage: Storage;
  /** Drops document_display and its migration record, closes, reopens with ALL_MIGRATIONS. */
  reopenAfterDroppingLayout(): Promise<Storage>;
  dispose(): Promise<void>;
}

const docs = () => [
  sampleDocument('D1', { fullText: 'The body text of D1, long enough to matter.', references: ['doi://10.1/a', 'doi://10.1/b'] }),
  sampleDocument('D2', { fullText: '', references: [] }),
  sampleDocument('D3', { title: 'Nul \u0000 and lone \ud800 surrogate', abstract: null, authors: [], extra: {} }),
  sampleDocument('D4', { index: 'social', type: 'answer', attribution: { author: 'A', authorUrl: null, url: 'https://x.example/q/1', site: 'x', license: 'CC BY-SA 4.0' } }),
  sampleDocument('N1', { title: 'Retraction notice: Title of D1', type: 'retraction', noticeKind: 'retraction', relations: [{ kind: 'retraction', uri: 'doi://10.1234/d1' }] }),
];

async function assertDisplayMatches(s: Storage, ids: string[]): Promise<void> {
  const display = await s.documents.getDisplayMany([...ids, 'missing', ids[0]!]);
  const full = await s.documents.getMany(ids);
  assert.deepEqual([...display.keys()].sort(), [...full.keys()].sort(), 'the same live ids');
  for (const [id, doc] of full) assert.deepEqual(display.get(id), toDisplayDocument(doc), `display form of ${id}`);
}

export function displayRecordsContract(label: string, open: StorageFactory, legacy: () => Promise<LegacyFixture>): void {
  const it = (name: string, fn: (s: Storage) => Promise<void>) =>
    test(name, async () => {
      const fixture = await open();
      try {
        await fn(fixture.storage);
      } finally {
        await fixture.dispose();
      }
    });

  describe(`display records contract: ${label}`, () => {
    it('getDisplayMany is the display form of get(): no full text, flags for it and the references count', async (s) => {
      await s.documents.upsertMany(docs(), 1000);
      await assertDisplayMatches(s, ['D1', 'D2', 'D3', 'D4', 'N1']);
      const d = (await s.documents.getDisplayMany(['D1', 'D2', 'D3'])) as Map<string, Record<string, unknown>>;
      assert.equal(d.get('D1')!.hasFullText, true);
      assert.equal(d.get('D1')!.referencesCount, 2);
      assert.equal(d.get('D2')!.hasFullText, false);
      assert.equal(d.get('D2')!.referencesCount, 0);
      assert.ok(!('fullText' in d.get('D1')!) && !('references' in d.get('D1')!), 'neither the text nor the list is read');
      assert.equal(d.get('D3')!.title, 'Nul \uFFFD and lone \uFFFD surrogate');
      assert.deepEqual(await s.documents.getDisplayMany([]), new Map());
    });

    it('getDisplayMany follows updates, work merges (relabels), deletes and revivals', async (s) => {
      await s.documents.upsertMany(docs(), 1000);
      await s.documents.upsertMany([sampleDocument('D1', { title: 'New title', fullText: null, references: [] })], 2000);
      // D5 carries D2's DOI: one work, D2 is relabelled (new seq) into the merged work.
      await s.documents.upsertMany([sampleDocument('A0', { uris: ['doi://10.1234/d2', 'doi://10.9/other'] })], 3000);
      await assertDisplayMatches(s, ['D1', 'D2', 'D3', 'D4', 'N1', 'A0']);
      const d2 = (await s.documents.getDisplayMany(['D2'])).get('D2')!;
      assert.equal(d2.workKey, 'A0');
      assert.equal((await s.documents.getDisplayMany(['D1'])).get('D1')!.title, 'New title');
      assert.equal(await s.documents.delete('D3', 4000), true);
      assert.equal((await s.documents.getDisplayMany(['D3'])).size, 0, 'a deleted record has no display row');
      await s.documents.upsertMany([sampleDocument('D3')], 5000);
      await assertDisplayMatches(s, ['D1', 'D2', 'D3', 'D4', 'N1', 'A0']);
      assert.equal((await s.documents.getDisplayMany(['D3'])).get('D3')!.createdAt, 5000, 'a revived record is new');
    });

    it('getDisplayMany carries the non-empty full text of the ids asked for, and only of those', async (s) => {
      await s.documents.upsertMany(docs(), 1000);
      const d = await s.documents.getDisplayMany(['D1', 'D2', 'D3', 'D4', 'missing'], ['D1', 'D2', 'missing', 'D4']);
      assert.equal(d.get('D1')!.fullText, 'The body text of D1, long enough to matter.');
      assert.ok(!('fullText' in d.get('D2')!), 'an empty text is no text');
      assert.ok(!('fullText' in d.get('D3')!), 'not asked for');
      const full = await s.documents.getMany(['D1', 'D2', 'D3', 'D4']);
      for (const [id, doc] of d) {
        const { fullText: _t, ...display } = doc;
        assert.deepEqual(display, toDisplayDocument(full.get(id)!), `display form of ${id}`);
      }
      await s.documents.delete('D1', 2000);
      assert.equal((await s.documents.getDisplayMany(['D1'], ['D1'])).size, 0);
    });

    it('getTextWindows returns slices of full texts in Unicode scalar values and their lengths, not the rest', async (s) => {
      const astral = 'Ærø 😀 𝛂-helix 地下水 naïve café '.repeat(40);
      const long = `${'x'.repeat(300_000)}é😀end`;
      await s.documents.upsertMany(
        [
          ...docs(),
          sampleDocument('W1', { fullText: astral }),
          sampleDocument('W2', { fullText: long }),
          sampleDocument('W3', { fullText: 'Quote " back\\slash \n new\tline \u0000 nul' }),
        ],
        1000,
      );
      const cps = (t: string) => Array.from(t);
      const slice = (t: string, a: number, b: number) => cps(t).slice(a, b).join('');
      const astralLen = cps(astral).length;
      const w = await s.documents.getTextWindows([
        { id: 'W1', ranges: [[0, 9], [4, 5], [astralLen - 12, astralLen], [astralLen - 3, astralLen + 50], [astralLen + 5, astralLen + 9], [7, 7]] },
        { id: 'W2', ranges: [[299_998, 300_003], [0, 3]] },
        { id: 'W3', ranges: [[0, 100]] },
        { id: 'D1', ranges: [[4, 8]] },
        { id: 'D2', ranges: [[0, 10]] },
        { id: 'D4', ranges: [] },
        { id: 'missing', ranges: [[0, 1]] },
      ]);
      assert.deepEqual(w.get('W1'), {
        length: astralLen,
        texts: [slice(astral, 0, 9), '😀', slice(astral, astralLen - 12, astralLen), slice(astral, astralLen - 3, astralLen), '', ''],
      });
      assert.equal(w.get('W1')!.texts[0], 'Ærø 😀 𝛂-h');
      assert.deepEqual(w.get('W2'), { length: 300_005, texts: ['xxé😀e', 'xxx'] });
      assert.deepEqual(w.get('W3'), { length: cps('Quote " back\\slash \n new\tline \uFFFD nul').length, texts: ['Quote " back\\slash \n new\tline \uFFFD nul'] });
      assert.deepEqual(w.get('D1'), { length: 'The body text of D1, long enough to matter.'.length, texts: ['body'] });
      assert.deepEqual(w.get('D2'), { length: 0, texts: [''] }, 'an empty text');
      assert.deepEqual(w.get('D4')?.texts, [], 'no ranges: the length alone');
      assert.ok(!w.has('missing'));
      assert.deepEqual(await s.documents.getTextWindows([]), new Map());
      await s.documents.delete('W1', 2000);
      assert.equal((await s.documents.getTextWindows([{ id: 'W1', ranges: [[0, 3]] }])).size, 0, 'a deleted record has no text');
    });

    test('the core/003 migration back-fills the display rows of records stored before it', async () => {
      const fx = await legacy();
      try {
        await fx.storage.documents.upsertMany(docs(), 1000);
        await fx.storage.documents.delete('D2', 2000);
        await fx.storage.documents.upsertMany([sampleDocument('A0', { uris: ['doi://10.1234/d4'] })], 3000);
        const s = await fx.reopenAfterDroppingLayout();
        await assertDisplayMatches(s, ['D1', 'D3', 'D4', 'N1', 'A0']);
        assert.equal((await s.documents.getDisplayMany(['D2'])).size, 0);
        // and the layout is written from then on
        await s.documents.upsertMany([sampleDocument('D9', { fullText: 'x' })], 4000);
        await assertDisplayMatches(s, ['D9', 'D1']);
      } finally {
        await fx.dispose();
      }
    });
  });
}
