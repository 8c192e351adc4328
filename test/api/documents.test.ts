// GET /v2/documents/{id} and /v2/documents/by-uri/{uri}: cuts, billing, errors, activity.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { countContentTokens } from '../../src/domain/content-tokens.js';
import { testApp, type TestApp } from '../helpers/app.js';
import { doc, seed } from '../helpers/documents.js';

describe('documents', () => {
  let app: TestApp;
  let acct: { id: number; key: string };
  const abstract = 'Hydrogen storage in depleted gas reservoirs: a review of 2.5-mm pore throats, Léa\'s data and 𝔘nicode.';
  before(async () => {
    app = await testApp();
    acct = await app.account({ credits: 1000 });
    await seed(app, [
      doc('W1', { uris: ['doi://10.1016/j.fuel.2022.125636', 'https://openalex.org/W1'], abstract, fullText: 'Full text. '.repeat(600).trim(), isRetracted: true, notices: [{ kind: 'retraction', uri: null }] }),
      doc('W2', { uris: ['arxiv://2101.00001v2'] }),
    ]);
  });
  after(() => app.dispose());

  const get = (url: string, key = acct.key) => app.http.inject({ method: 'GET', url, headers: { 'x-api-key': key } });
  const balance = () => app.storage.ledger.balance(acct.id);

  test('full document: content, URIs, retraction flag; billed the flat price', async () => {
    const before = await balance();
    const res = await get('/v2/documents/W1');
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assert.equal(body.id, 'W1');
    assert.deepEqual(body.uris, ['doi://10.1016/j.fuel.2022.125636', 'https://openalex.org/W1']);
    assert.equal(body.document.is_retracted, true);
    assert.equal(body.document.truncated, false);
    assert.ok(body.document.content.startsWith('# Title of W1\n\n' + abstract));
    assert.equal(body.document.content_length, [...body.document.content].length);
    assert.equal(before - (await balance()), app.config.prices.documentFetch);
  });

  test('max_tokens returns exactly the first N content tokens and bills only those', async () => {
    const before = await balance();
    const res = await get('/v2/documents/W1?max_tokens=12');
    const d = res.json().document;
    assert.equal(countContentTokens(d.content), 12);
    assert.equal(d.content_tokens, 12);
    assert.equal(d.content, '# Title of W1\n\nHydrogen storage in depleted gas reservoirs: a');
    assert.equal(d.truncated, true);
    assert.ok(d.content_length > d.content.length);
    assert.equal(before - (await balance()), Math.ceil(12 / app.config.prices.documentTokensPerCredit));
  });

  test('max_chars returns at most N characters (code points) and reports the full length', async () => {
    const res = await get('/v2/documents/W1?max_chars=30');
    const d = res.json().document;
    assert.equal([...d.content].length, 30);
    assert.equal(d.truncated, true);
    const full = (await get('/v2/documents/W1')).json().document;
    assert.equal(d.content_length, full.content_length);
  });

  test('a cut never splits a surrogate pair', async () => {
    const full = (await get('/v2/documents/W1')).json().document.content as string;
    const cp = [...full];
    const at = cp.findIndex((c) => c === '𝔘');
    const d = (await get(`/v2/documents/W1?max_chars=${at + 1}`)).json().document;
    assert.ok(d.content.endsWith('𝔘'));
  });

  test('max_tokens=0 returns nothing and costs nothing', async () => {
    const before = await balance();
    const d = (await get('/v2/documents/W1?max_tokens=0')).json().document;
    assert.equal(d.content, '');
    assert.equal(await balance(), before);
  });

  test('by-uri accepts percent-encoded canonical URIs and common spellings', async () => {
    for (const uri of ['doi://10.1016/J.FUEL.2022.125636', 'https://doi.org/10.1016/j.fuel.2022.125636', 'doi:10.1016/j.fuel.2022.125636']) {
      const res = await get(`/v2/documents/by-uri/${encodeURIComponent(uri)}?max_tokens=3`);
      assert.equal(res.statusCode, 200, `${uri}: ${res.body}`);
      assert.equal(res.json().id, 'W1');
    }
    const ax = await get(`/v2/documents/by-uri/${encodeURIComponent('arxiv://2101.00001v2')}?max_tokens=1`);
    assert.equal(ax.json().id, 'W2');
  });

  test('400 invalid URI, 404 unknown, 422 bad parameters; none of them charges', async () => {
    const before = await balance();
    const bad = await get(`/v2/documents/by-uri/${encodeURIComponent('ftp://x')}`);
    assert.equal(bad.statusCode, 400);
    assert.equal(bad.json().detail.code, 'invalid_uri');
    assert.equal((await get('/v2/documents/nope')).statusCode, 404);
    assert.equal((await get(`/v2/documents/by-uri/${encodeURIComponent('doi://10.1234/none')}`)).statusCode, 404);
    for (const q of ['max_tokens=-1', 'max_tokens=abc', 'max_chars=1.5', 'unknown=1']) {
      const r = await get(`/v2/documents/W1?${q}`);
      assert.equal(r.statusCode, 422, `${q}: ${r.body}`);
    }
    assert.equal(await balance(), before);
  });

  test('402 when the balance cannot pay: no content, no ledger entry', async () => {
    const poor = await app.account({ credits: 5 });
    const entriesBefore = await app.storage.ledger.entries(poor.id, 100);
    const res = await get('/v2/documents/W1', poor.key);
    assert.equal(res.statusCode, 402);
    assert.equal(res.json().detail.code, 'insufficient_credits');
    assert.doesNotMatch(res.body, /Hydrogen/);
    assert.deepEqual(await app.storage.ledger.entries(poor.id, 100), entriesBefore);
    assert.equal(await app.storage.ledger.balance(poor.id), 5);
  });

  test('reads are recorded as agent reads', async () => {
    await get('/v2/documents/W2');
    await app.activity.flush();
    const c = await app.storage.activity.counts('W2', Math.floor(app.clock.nowMs() / 1000));
    assert.ok(c.agentReads7d >= 1);
  });


  test('billing without holes: a cut that returns everything costs the whole price; a truncated cut has no abstract; no passage, no charge', async () => {
    let before = await balance();
    const whole = await get('/v2/documents/W1?max_tokens=100000000');
    assert.equal(whole.statusCode, 200);
    assert.equal(before - (await balance()), app.config.prices.documentFetch);
    before = await balance();
    const cut = (await get('/v2/documents/W1?max_tokens=5')).json();
    assert.equal(cut.document.abstract, null);
    assert.ok(before - (await balance()) <= 1);
    before = await balance();
    const none = await get('/v2/documents/by-uri/doi%3A%2F%2F10.1016%2Fj.fuel.2022.125636?text_filter=%22quantum%20chromodynamics%22');
    assert.equal(none.statusCode, 200);
    assert.equal(none.json().hits.length, 0);
    assert.equal(await balance(), before);
  });
});
