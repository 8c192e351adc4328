// Ask in the browser (issue 11 over conversations): a question posted without JavaScript renders the
// finished answer with markers linking to the highlighted passage; the streamed twin over the session;
// documents used; follow-up; editing a question; share switch and the link read signed out; delete.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { authApp, Browser, csrfOf, person, type AuthTestApp } from '../auth/helpers.js';
import { doc, seed } from '../helpers/documents.js';

describe('web pages: ask', () => {
  let app: AuthTestApp;
  before(async () => {
    app = await authApp();
    await seed(app, [
      doc('c1', { title: 'Underground hydrogen storage in salt caverns', abstract: 'Salt caverns offer tight storage for hydrogen gas. Cushion gas keeps the cavern pressure above its minimum.', type: 'journal-article' }),
      doc('c2', { title: 'Hydrogen loss in depleted gas reservoirs', abstract: 'Microbial activity consumes hydrogen stored in depleted gas reservoirs.', type: 'journal-article' }),
      doc('c3', { title: 'Lithium batteries for grid storage', abstract: 'Lithium-ion batteries store energy for hours, not seasons.', type: 'journal-article' }),
      doc('c4', {
        title: 'Field notes on cavern construction',
        abstract: 'A report from a construction site.',
        fullText: '# Field notes on cavern construction\n\n## 1. Introduction\n\nThe site lies in northern Germany.\n\n## 2. Leaching procedure\n\nThe boreholes were flushed with warm brine at forty degrees during solution mining.\n\n## 3. Outlook\n\nMore sites follow.',
        type: 'journal-article',
      }),
    ]);
    await app.indexes!.catchUp();
  });
  after(() => app.dispose());

  const signedIn = async () => {
    const p = await person(app, { credits: 100_000 });
    const b = new Browser(app);
    assert.equal((await b.signIn(p.email, p.password, '/ask')).statusCode, 303);
    return { b, p };
  };

  test('signed out: /ask asks to sign in', async () => {
    const res = await new Browser(app).get('/ask');
    assert.equal(res.statusCode, 200);
    assert.match(res.body, /Sign in<\/a> to ask/);
  });

  test('ask without JavaScript, citation links to the highlighted passage, follow-up, edit, share, read signed out, delete', async () => {
    const { b } = await signedIn();
    const home = await b.get('/ask');
    assert.match(home.body, /<script src="\/assets\/ask.js" defer><\/script>/);
    const asked = await b.post('/ask', { csrf: csrfOf(home.body), query: 'How is hydrogen stored in salt caverns?', model: '' });
    assert.equal(asked.statusCode, 303, asked.body.slice(0, 500));
    const href = asked.headers.location as string;
    assert.match(href, /^\/ask\/how-is-hydrogen/);
    const page = await b.get(href);
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /<h2 id="q-0" class="question">How is hydrogen stored in salt caverns\?<\/h2>/);
    const cite = /<a class="cite" href="([^"]+)" aria-label="Source (\d+): “([^”]+)”/.exec(page.body);
    assert.ok(cite, 'the answer has a citation marker');
    assert.match(page.body, /<h3>Documents used<\/h3>/);
    const target = await b.get(cite[1]!.replace(/&amp;/g, '&').replace(/#.*$/, ''));
    assert.equal(target.statusCode, 200);
    assert.match(target.body, /<mark id="cited" class="cited" tabindex="-1">/);

    const follow = await b.post('/ask', { csrf: csrfOf(page.body), query: 'what about microbial loss?', conversation: /name="conversation" value="([^"]+)"/.exec(page.body)![1]!, model: '' });
    assert.equal(follow.statusCode, 303);
    const two = await b.get(href);
    assert.match(two.body, /id="q-1" class="question">what about microbial loss\?/);

    const edited = await b.post(`${href}/edit/0`, { csrf: csrfOf(two.body), query: 'Why do salt caverns need cushion gas?' });
    assert.equal(edited.statusCode, 303);
    const after = await b.get(href);
    assert.match(after.body, /id="q-0" class="question">Why do salt caverns need cushion gas\?/);
    assert.match(after.body, /id="q-1" class="question">what about microbial loss\?/, 'later questions are kept and recomputed');

    assert.equal((await new Browser(app).get(href)).statusCode, 404, 'not shared: nobody else reads it');
    const shared = await b.post(`${href}/share`, { csrf: csrfOf(after.body), shared: '1' });
    assert.equal(shared.statusCode, 200);
    assert.match(shared.body, /role="switch" aria-checked="true"/);
    assert.match(shared.body, new RegExp(`id="share-link" class="key" type="text" readonly value="http[^"]+${href}"`));
    const anon = await new Browser(app).get(href);
    assert.equal(anon.statusCode, 200);
    assert.match(anon.body, /A shared conversation \(read-only\)/);
    assert.doesNotMatch(anon.body, /Edit this question|Delete this conversation|name="csrf"/);

    const del = await b.post(`${href}/delete`, { csrf: csrfOf(shared.body) });
    assert.equal(del.statusCode, 303);
    assert.equal((await new Browser(app).get(href)).statusCode, 404);
  });

  test('a full-text citation names its section and opens the passage in the full text (ADR 0242)', async () => {
    const { b } = await signedIn();
    const home = await b.get('/ask');
    const asked = await b.post('/ask', { csrf: csrfOf(home.body), query: 'Were the boreholes flushed with warm brine during solution mining?', model: '' });
    assert.equal(asked.statusCode, 303, asked.body.slice(0, 500));
    const page = await b.get(asked.headers.location as string);
    const cite = /<a class="cite" href="([^"]+)" aria-label="Source (\d+): “(The boreholes were flushed[^”]+)” \(([^)]+)\)"/.exec(page.body);
    assert.ok(cite, page.body.slice(page.body.indexOf('class="answer"'), page.body.indexOf('class="answer"') + 1500));
    assert.equal(cite[4], 'Field notes on cavern construction, section “2. Leaching procedure”');
    // The link opens the document with the passage to highlight; reading the text (paid once a day) shows it marked in the full text.
    const target = await b.get(cite[1]!.replace(/&amp;/g, '&').replace(/#.*$/, ''));
    assert.equal(target.statusCode, 200);
    const form = /<form method="post" action="([^"]+)" class="buy">/.exec(target.body);
    let text = target.body;
    if (form) {
      assert.match(target.body, /name="highlight" value="The boreholes were flushed/);
      const price = /name="price" value="(\d+)"/.exec(target.body)![1]!;
      const read = await b.post(form[1]!, { csrf: csrfOf(target.body), price, highlight: cite[3]!, full: '1' });
      assert.equal(read.statusCode, 303);
      assert.match(read.headers.location as string, /#cited$/);
      text = (await b.get((read.headers.location as string).replace(/#.*$/, ''))).body;
    }
    assert.match(text, /<div class="fulltext">[\s\S]*## 2\. Leaching procedure[\s\S]*<mark id="cited" class="cited" tabindex="-1">The boreholes were flushed with warm brine/);
  });

  test('the streamed twin sends events with the session and CSRF token and ends with the page to open', async () => {
    const { b } = await signedIn();
    const home = await b.get('/ask');
    const res = await b.post('/ask/stream', { csrf: csrfOf(home.body), query: 'Which batteries store energy for hours?' });
    assert.equal(res.statusCode, 200);
    assert.match(res.headers['content-type'] as string, /text\/event-stream/);
    assert.match(res.body, /event: accepted/);
    assert.match(res.body, /event: delta/);
    assert.match(res.body, /event: result\ndata: \{"href":"\/ask\/which-batteries/);
    const forged = await b.post('/ask/stream', { query: 'x' });
    assert.equal(forged.statusCode, 403);
  });
});

describe('web pages: a citation whose excerpt is in the abstract', () => {
  test('the abstract is marked when the text does not hold the excerpt', async () => {
    const app = await authApp();
    try {
      await seed(app, [doc('a1', { title: 'Abstract only', abstract: 'Cushion gas keeps the cavern pressure above its minimum.', fullText: 'Unrelated body text.' })]);
      const p = await person(app);
      const b = new Browser(app);
      await b.signIn(p.email, p.password);
      const res = await b.get(`/documents/a1?highlight=${encodeURIComponent('Cushion gas keeps the cavern pressure above its minimum.')}`);
      assert.match(res.body, /<p class="abstract"><mark id="cited" class="cited" tabindex="-1">Cushion gas keeps/);
    } finally {
      await app.dispose();
    }
  });
});
