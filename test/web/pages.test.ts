// The web application's pages through the app (issue 11): search at `/` with the search in the URL,
// signed-out visitors asked to sign in, readable 402 messages, the document page (billed text, view
// events once per visitor and day, identifiers, in-document search, highlighted passage), references
// and citing works, originals for eligible accounts only, and page protections.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { authApp, Browser, person, type AuthTestApp } from '../auth/helpers.js';
import { doc, seed } from '../helpers/documents.js';

const Y = (y: number) => Date.UTC(y, 0, 1) / 1000;

describe('web pages: search and documents', () => {
  let app: AuthTestApp;
  before(async () => {
    app = await authApp();
    await seed(app, [
      doc('h1', { title: 'Underground hydrogen storage in salt caverns', abstract: 'Salt caverns offer tight storage for hydrogen gas; cushion gas keeps pressure.', fullText: 'Introduction. '.repeat(800) + 'The cushion gas fraction decides the working volume.', type: 'journal-article', language: 'en', issuedAt: Y(2022), publisher: 'Elsevier BV', authors: [{ name: 'Ada Lovelace' }], venue: 'Fuel', uris: ['doi://10.1016/j.fuel.2022.1', 'arxiv://2201.00001'], references: ['doi://10.1234/econ.3', 'doi://10.9999/missing'] }),
      doc('h2', { title: 'Hydrogen storage in depleted gas reservoirs', abstract: 'A review of cushion gas, hydrogen loss and microbial activity.', type: 'review', language: 'en', issuedAt: Y(2023), uris: ['doi://10.3390/en2023.2'], references: ['doi://10.1016/j.fuel.2022.1'] }),
      doc('h3', { title: 'Gas storage economics', abstract: 'Storage of natural gas <script>alert(1)</script> and hydrogen blending.', type: 'journal-article', language: 'en', issuedAt: Y(2015), uris: ['doi://10.1234/econ.3'], isRetracted: true, notices: [{ kind: 'retraction', uri: null }] }),
    ]);
    await app.indexes!.catchUp();
  });
  after(() => app.dispose());

  const signedIn = async (credits = 10_000) => {
    const p = await person(app, { credits });
    const b = new Browser(app);
    const res = await b.signIn(p.email, p.password, '/');
    assert.equal(res.statusCode, 303);
    return { b, p };
  };

  test('signed out: `/` shows the query box with phrases explained; a search asks to sign in and charges nothing', async () => {
    const b = new Browser(app);
    const home = await b.get('/');
    assert.equal(home.statusCode, 200);
    assert.match(home.headers['content-type'] as string, /text\/html/);
    assert.match(home.headers['content-security-policy'] as string, /frame-ancestors 'none'/);
    assert.match(home.body, /<main id="content"/);
    assert.match(home.body, /<label for="q">Search<\/label>/);
    assert.match(home.body, /double quotes/);
    const res = await b.get('/?q=hydrogen');
    assert.equal(res.statusCode, 200);
    assert.match(res.body, /sign in to search/i);
    assert.match(res.body, /href="\/v2\/auth\/sign-in\?return_to=%2F%3Fq%3Dhydrogen"/);
    assert.doesNotMatch(res.body, /class="results"/);
  });

  test('signed in: a phrase and a filter search; results link to document pages, flags and highlights shown; the URL holds the search', async () => {
    const { b, p } = await signedIn();
    const before = await app.storage.ledger.balance(p.id);
    const res = await b.get('/?q=%22hydrogen+storage%22&type=journal-article');
    assert.equal(res.statusCode, 200);
    assert.match(res.body, /href="\/documents\/h1"/);
    assert.doesNotMatch(res.body, /href="\/documents\/h2"/, 'the type filter drops the review');
    assert.match(res.body, /<mark>/);
    assert.match(res.body, /value="&quot;hydrogen storage&quot;"/, 'the query box keeps the query');
    assert.match(res.body, /<option value="journal-article" selected>/);
    assert.ok((await app.storage.ledger.balance(p.id)) < before, 'the search is billed to the account');
    const retracted = await b.get('/?q=economics');
    assert.match(retracted.body, /class="flag bad">Retracted/);
    assert.doesNotMatch(retracted.body, /<script>alert/, 'document text is escaped');
    const bad = await b.get('/?q=gas&from=20x');
    assert.equal(bad.statusCode, 422);
    assert.match(bad.body, /four-digit year/);
  });

  test('out of credits: the search page says so in words (402)', async () => {
    const { b } = await signedIn(0);
    const res = await b.get('/?q=hydrogen');
    assert.equal(res.statusCode, 402);
    assert.match(res.body, /You are out of credits/);
    assert.match(res.body, /role="alert"/);
  });

  test('document page: metadata and abstract for everyone, the cut text for signed-in people with the rest on demand; a view once per visitor and day', async () => {
    const anon = new Browser(app);
    const open = await anon.get('/documents/h1');
    assert.equal(open.statusCode, 200);
    assert.match(open.body, /<h1>Underground hydrogen storage in salt caverns<\/h1>/);
    assert.match(open.body, /href="https:\/\/doi.org\/10.1016\/j.fuel.2022.1"/);
    assert.match(open.body, /href="https:\/\/arxiv.org\/abs\/2201.00001"/);
    assert.match(open.body, /Salt caverns offer/);
    assert.match(open.body, /Sign in<\/a> to read the text/);
    assert.doesNotMatch(open.body, /working volume/);

    const { b, p } = await signedIn();
    const page = await b.get('/documents/h1');
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /Introduction\./);
    assert.doesNotMatch(page.body, /working volume/, 'long texts are cut');
    assert.match(page.body, /href="\/documents\/h1\?full=1"/);
    const full = await b.get('/documents/h1?full=1');
    assert.match(full.body, /working volume/);
    await b.get('/documents/h1');
    await app.activity.flush();
    const views = (await app.storage.activity.counts('h1', Math.floor(app.clock.nowMs() / 1000))).views7d;
    assert.equal(views, 2, `one view for the signed-out visitor and one for ${p.email} (three visits)`);
  });

  test('in-document search and a highlighted passage', async () => {
    const { b } = await signedIn();
    const found = await b.get('/documents/h1?text_filter=%22cushion+gas+fraction%22');
    assert.equal(found.statusCode, 200);
    assert.match(found.body, /aria-label="Matching passages"/);
    assert.match(found.body, /<mark>cushion<\/mark>/i);
    const marked = await b.get(`/documents/h1?highlight=${encodeURIComponent('The cushion gas fraction decides the working volume.')}`);
    assert.match(marked.body, /<mark id="cited" class="cited" tabindex="-1">The cushion gas fraction decides the working volume.<\/mark>/);
  });

  test('references and citing works, both directions; signed out they lead to sign-in', async () => {
    const { b } = await signedIn();
    const refs = await b.get('/documents/h1/references');
    assert.equal(refs.statusCode, 200);
    assert.match(refs.body, /href="\/documents\/h3"/);
    assert.match(refs.body, /doi:\/\/10.9999\/missing/);
    const citing = await b.get('/documents/h1/cited-by');
    assert.equal(citing.statusCode, 200);
    assert.match(citing.body, /href="\/documents\/h2"/);
    const anon = await new Browser(app).get('/documents/h1/cited-by');
    assert.equal(anon.statusCode, 303);
    assert.match(anon.headers.location as string, /sign-in\?return_to=/);
  });

  test('unknown documents are a 404 page, not JSON; the stylesheet is served', async () => {
    const res = await new Browser(app).get('/documents/nope');
    assert.equal(res.statusCode, 404);
    assert.match(res.body, /<h1>Not found<\/h1>/);
    const css = await new Browser(app).get('/assets/lectern.css');
    assert.equal(css.statusCode, 200);
    assert.match(css.headers['content-type'] as string, /text\/css/);
  });
});
