// The web application's pages through the app (issue 11): search at `/` with the search in the URL,
// signed-out visitors asked to sign in, readable 402 messages, the document page (billed text, view
// events once per visitor and day, identifiers, in-document search, highlighted passage), references
// and citing works, originals for eligible accounts only, and page protections.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { authApp, Browser, csrfOf, person, type AuthTestApp } from '../auth/helpers.js';
import { doc, original, seed } from '../helpers/documents.js';
import { createTestSchema, databaseUrl, postgresSkip } from '../helpers/storage.js';

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

  test('document page: metadata and abstract free for everyone; the text behind a button showing its price; a view once per visitor and day', async () => {
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
    const before = await app.storage.ledger.balance(p.id);
    const page = await b.get('/documents/h1');
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /Salt caverns offer/, 'the abstract is shown signed in too');
    assert.doesNotMatch(page.body, /Introduction\./, 'no text before the button is pressed');
    assert.match(page.body, /<button type="submit">Read the full text · 50 credits<\/button>/);
    await app.billing.idle();
    assert.equal(await app.storage.ledger.balance(p.id), before, 'opening the page charged nothing');

    const bought = await b.post('/documents/h1/read', { csrf: csrfOf(page.body), price: '50' });
    assert.equal(bought.statusCode, 303);
    assert.equal(bought.headers.location, '/documents/h1#text');
    const reading = await b.get('/documents/h1');
    assert.match(reading.body, /Introduction\./);
    assert.doesNotMatch(reading.body, /working volume/, 'long texts are cut');
    assert.match(reading.body, /href="\/documents\/h1\?full=1#text"/);
    const full = await b.get('/documents/h1?full=1');
    assert.match(full.body, /working volume/);
    await b.get('/documents/h1');
    await app.billing.idle();
    assert.equal(await app.storage.ledger.balance(p.id), before - 50, 'the charge equals the price on the button, once');
    await app.activity.flush();
    const views = (await app.storage.activity.counts('h1', Math.floor(app.clock.nowMs() / 1000))).views7d;
    assert.equal(views, 2, `one view for the signed-out visitor and one for ${p.email} (five visits)`);
  });

  test('the text is charged once per document per day: two opens, a second click, two tabs at once; the next day again', async () => {
    const { b, p } = await signedIn();
    const start = await app.storage.ledger.balance(p.id);
    const first = await b.get('/documents/h1');
    const second = await b.get('/documents/h1');
    const csrf = csrfOf(second.body);
    assert.ok(csrfOf(first.body));
    // a price other than the one the page showed (the operator changed prices meanwhile) is refused: nothing charged
    const changed = await b.post('/documents/h1/read', { csrf, price: '49' });
    assert.equal(changed.statusCode, 409);
    assert.match(changed.body, /now 50 credits, not 49/);
    await app.billing.idle();
    assert.equal(await app.storage.ledger.balance(p.id), start);
    // double click and another tab: concurrent posts of the same form
    const posts = await Promise.all([1, 2, 3].map(() => b.post('/documents/h1/read', { csrf, price: '50' })));
    assert.deepEqual(posts.map((r) => r.statusCode), [303, 303, 303]);
    await app.billing.idle();
    assert.equal(await app.storage.ledger.balance(p.id), start - 50);
    const entries = (await app.storage.ledger.entries(p.id, 20)).filter((e) => e.operation === 'document_read');
    assert.equal(entries.length, 1);
    assert.equal(entries[0]!.amount, -50);
    assert.match(entries[0]!.reference ?? '', /^\d{4}-\d{2}-\d{2}\/h1$/);
    // the account page says what the charge was for: the operation and the document
    const account = await b.get('/account');
    assert.match(account.body, /<td>Document text \(web\)<\/td><td><a href="\/documents\/h1">Underground hydrogen storage in salt caverns<\/a><\/td><td class="num">-50<\/td>/);
    // a price that is not the one the page showed is refused, and nothing is charged
    const stale = await b.post('/documents/h2/read', { csrf, price: '49' });
    assert.equal(stale.statusCode, 303, 'h2 has no text: nothing to buy, nothing charged');
    const wrong = await b.post('/documents/h1/read', { csrf, price: 'abc' });
    assert.equal(wrong.statusCode, 422);
    // the next UTC day it costs again
    app.clock.advance(86_400_000);
    const tomorrow = await b.get('/documents/h1');
    assert.match(tomorrow.body, /Read the full text · 50 credits/);
    await b.post('/documents/h1/read', { csrf: csrfOf(tomorrow.body), price: '50' });
    await app.billing.idle();
    assert.equal(await app.storage.ledger.balance(p.id), start - 100);
  });

  test('an abstract-only record is free signed in and out: no button, no charge', async () => {
    const { b, p } = await signedIn();
    const start = await app.storage.ledger.balance(p.id);
    const page = await b.get('/documents/h2');
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /A review of cushion gas/);
    assert.match(page.body, /no text beyond the abstract above/);
    assert.doesNotMatch(page.body, /Read the full text/);
    const anon = await new Browser(app).get('/documents/h2');
    assert.match(anon.body, /A review of cushion gas/);
    await app.billing.idle();
    assert.equal(await app.storage.ledger.balance(p.id), start);
  });

  test('in-document search (its price on the form) and a highlighted passage after the text is bought', async () => {
    const { b } = await signedIn();
    const found = await b.get('/documents/h1?text_filter=%22cushion+gas+fraction%22');
    assert.equal(found.statusCode, 200);
    assert.match(found.body, /15 credits when a passage matches/);
    assert.match(found.body, /aria-label="Matching passages"/);
    assert.match(found.body, /<mark>cushion<\/mark>/i);
    const passage = 'The cushion gas fraction decides the working volume.';
    const offer = await b.get(`/documents/h1?highlight=${encodeURIComponent(passage)}`);
    assert.match(offer.body, /Read the full text/);
    const bought = await b.post('/documents/h1/read', { csrf: csrfOf(offer.body), price: '50', highlight: passage });
    assert.equal(bought.statusCode, 303);
    assert.equal(bought.headers.location, `/documents/h1?highlight=${new URLSearchParams({ h: passage }).toString().slice(2)}#cited`);
    const marked = await b.get(String(bought.headers.location).replace(/#.*$/, ''));
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

describe('web pages: originals', () => {
  test('eligible accounts see and download the original; others are told it is for eligible accounts and get 403', async () => {
    const app = await authApp();
    try {
      const bytes = new TextEncoder().encode('%PDF-1.4 fake original');
      await seed(app, [doc('o1', { title: 'With an original', abstract: 'An abstract.', originals: [await original(app, 'pdf', bytes)] })]);
      const plain = await person(app);
      const b = new Browser(app);
      await b.signIn(plain.email, plain.password);
      const page = await b.get('/documents/o1');
      assert.match(page.body, /available to eligible accounts only/);
      assert.doesNotMatch(page.body, /original\.pdf/);
      assert.equal((await b.get('/documents/o1/original.pdf')).statusCode, 403);
      const elig = await person(app);
      await app.storage.accounts.update(elig.id, { eligibleForOriginals: true });
      const e = new Browser(app);
      await e.signIn(elig.email, elig.password);
      const epage = await e.get('/documents/o1');
      assert.match(epage.body, /href="\/documents\/o1\/original\.pdf" download>PDF<\/a>/);
      const file = await e.get('/documents/o1/original.pdf');
      assert.equal(file.statusCode, 200);
      assert.equal(file.headers['content-type'], 'application/pdf');
      assert.equal(file.body, '%PDF-1.4 fake original');
    } finally {
      await app.dispose();
    }
  });
});

describe('web pages: pagination', () => {
  test('ten results a page; next and previous links keep the search and the filters', async () => {
    const app = await authApp();
    try {
      await seed(app, Array.from({ length: 25 }, (_, i) => doc(`g${i}`, { title: `Geology note ${i} on sandstone`, abstract: `Sandstone porosity sample ${i}.`, type: 'journal-article' })));
      await app.indexes!.catchUp();
      const p = await person(app, { credits: 10_000 });
      const b = new Browser(app);
      await b.signIn(p.email, p.password);
      const one = await b.get('/?q=sandstone&type=journal-article');
      assert.equal((one.body.match(/<h2 class="hit">/g) ?? []).length, 10);
      assert.match(one.body, /href="\/\?q=sandstone&amp;type=journal-article&amp;page=2" rel="next"/);
      const three = await b.get('/?q=sandstone&type=journal-article&page=3');
      assert.equal((three.body.match(/<h2 class="hit">/g) ?? []).length, 5);
      assert.match(three.body, /<ol class="results" aria-label="Search results" start="21">/);
      assert.match(three.body, /rel="prev"/);
      assert.doesNotMatch(three.body, /rel="next"/);
    } finally {
      await app.dispose();
    }
  });
});

describe('web pages: rate limits', () => {
  test('searches in pages spend the account search bucket; a spent one says how long to wait (429)', async () => {
    const app = await authApp({ rateLimits: { search: { capacity: 1, refillPerSecond: 0.01 } } } as never);
    try {
      const p = await person(app, { credits: 10_000 });
      const b = new Browser(app);
      await b.signIn(p.email, p.password);
      assert.equal((await b.get('/?q=anything')).statusCode, 200);
      const res = await b.get('/?q=anything');
      assert.equal(res.statusCode, 429);
      assert.match(res.headers['retry-after'] as string, /^\d+$/);
      assert.match(res.body, new RegExp(`Too many requests.</strong> Wait ${res.headers['retry-after']} seconds`));
    } finally {
      await app.dispose();
    }
  });
});

describe('web pages on PostgreSQL: the text charged once per document per day', { skip: databaseUrl ? false : postgresSkip('browser reads on PostgreSQL') }, () => {
  let app: AuthTestApp;
  let schema: Awaited<ReturnType<typeof createTestSchema>>;
  before(async () => {
    schema = await createTestSchema(databaseUrl!);
    app = await authApp({ databaseUrl: schema.url });
    await seed(app, [
      doc('p1', { title: 'Hydrogen in salt caverns', abstract: 'Cushion gas keeps pressure.', fullText: 'Body. '.repeat(50) + 'The working volume.' }),
      doc('p2', { title: 'Abstract only', abstract: 'Nothing more.' }),
    ]);
  });
  after(async () => {
    await app.dispose();
    await schema.drop();
  });

  test('open twice, three concurrent clicks: one charge at the price shown; an abstract-only record is free', async () => {
    const p = await person(app, { credits: 1000 });
    const b = new Browser(app);
    assert.equal((await b.signIn(p.email, p.password, '/')).statusCode, 303);
    await b.get('/documents/p1');
    const page = await b.get('/documents/p1');
    const price = /Read the full text · (\d+) credits/.exec(page.body)?.[1];
    assert.equal(price, '50');
    const free = await b.get('/documents/p2');
    assert.match(free.body, /no text beyond the abstract above/);
    await app.billing.idle();
    assert.equal(await app.storage.ledger.balance(p.id), 1000);
    const posts = await Promise.all([1, 2, 3].map(() => b.post('/documents/p1/read', { csrf: csrfOf(page.body), price: price! })));
    assert.deepEqual(posts.map((r) => r.statusCode), [303, 303, 303]);
    assert.match((await b.get('/documents/p1?full=1')).body, /The working volume\./);
    await app.billing.idle();
    assert.equal(await app.storage.ledger.balance(p.id), 950);
    const account = await b.get('/account');
    assert.match(account.body, /<td>Document text \(web\)<\/td><td><a href="\/documents\/p1">Hydrogen in salt caverns<\/a><\/td><td class="num">-50<\/td>/);
  });
});
