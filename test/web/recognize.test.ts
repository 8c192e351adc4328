// Recognition in the browser (issue 11): upload a PDF through the page's multipart form (CSRF field
// first), follow the job page until it completes, read the quality report and the Markdown, download it;
// other accounts' jobs are 404; a form without the CSRF token is refused.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { authApp, Browser, csrfOf, person, type AuthTestApp } from '../auth/helpers.js';
import { sampleArticle } from '../recognition/helpers/pdf-builder.js';
import { needs } from '../recognition/helpers/tools.js';
import { multipart } from '../recognition-jobs/helpers.js';
import { CEILING_MS } from '../helpers/wait.js';

/** A skip reason when the PDF tool is missing, else false. */
const missing = await needs('mutool');

describe('web pages: recognition', { skip: missing }, () => {
  let app: AuthTestApp;
  before(async () => {
    app = await authApp({ limits: { jsonBodyBytes: 1024 * 1024, requestTimeoutMs: 120_000, uploadBytes: 4 * 1024 * 1024, uploadPages: 40, shutdownGraceMs: 10_000 } } as never);
  });
  after(() => app.dispose());

  const upload = async (b: Browser, csrf: string | null, data: Uint8Array) => {
    const parts = [...(csrf ? [{ name: 'csrf', data: csrf }] : []), { name: 'file', filename: 'paper.pdf', contentType: 'application/pdf', data }];
    const { body, contentType } = multipart(parts);
    const cookie = [...b.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    return app.http.inject({ method: 'POST', url: '/recognize', headers: { 'content-type': contentType, cookie, accept: 'text/html' }, payload: body });
  };

  test('upload, progress, quality report and Markdown, download; ownership and CSRF', async () => {
    const p = await person(app, { credits: 10_000 });
    const b = new Browser(app);
    await b.signIn(p.email, p.password);
    const home = await b.get('/recognize');
    assert.equal(home.statusCode, 200);
    assert.match(home.body, /enctype="multipart\/form-data"/);
    const forged = await upload(b, null, sampleArticle(2));
    assert.equal(forged.statusCode, 403);
    const res = await upload(b, csrfOf(home.body), sampleArticle(2));
    assert.equal(res.statusCode, 303, res.body.slice(0, 400));
    const href = res.headers.location as string;
    assert.match(href, /^\/recognize\/rj_[0-9a-f]{32}$/);
    let page = await b.get(href);
    const deadline = Date.now() + CEILING_MS;
    while (/Converting…/.test(page.body) && Date.now() < deadline) {
      assert.equal(page.headers.refresh, '3', 'a running job reloads itself');
      await new Promise((r) => setTimeout(r, 200));
      page = await b.get(href);
    }
    assert.match(page.body, /<h1>Conversion done<\/h1>/);
    assert.match(page.body, /Quality report/);
    assert.match(page.body, /grade [A-F]/);
    assert.match(page.body, /<pre class="markdown"/);
    const md = await b.get(`${href}/markdown`);
    assert.equal(md.statusCode, 200);
    assert.match(md.headers['content-type'] as string, /text\/markdown/);
    assert.match(md.headers['content-disposition'] as string, /attachment/);
    assert.ok(md.body.length > 50);
    const other = await person(app);
    const ob = new Browser(app);
    await ob.signIn(other.email, other.password);
    assert.equal((await ob.get(href)).statusCode, 404);
    assert.equal((await ob.get(`${href}/markdown`)).statusCode, 404);
  });
});
