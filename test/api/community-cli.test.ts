// `lectern comments ...`: the operator's moderation (docs/community.md): pending list, approving and
// suspending authors, removing and publishing comments; unknown ids fail with exit code 1.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { runCliOn } from '../helpers/cli.js';
import { signFeedbackToken } from '../../src/search/feedback-token.js';
import { testApp, type TestApp } from '../helpers/app.js';
import { doc, seed } from '../helpers/documents.js';

let app: TestApp;
before(async () => {
  app = await testApp();
  await seed(app, [doc('h1', { title: 'Salt caverns' })]);
});
after(() => app.dispose());

const cli = (args: string[]) => runCliOn(app, args);

test('comments pending / approve-author / suspend-author / remove / publish', async () => {
  const a = await app.account();
  const now = Math.floor(app.clock.nowMs() / 1000);
  const submit = async () => {
    const t = randomUUID();
    const body = {
      trajectory_id: t,
      feedback_token: signFeedbackToken(app.secret, { trajectoryId: t, accountId: a.id, expiresAt: now + 3600 }),
      comment_id: randomUUID(),
      document_id: 'h1',
      model: 'm',
      contribution: 'review',
      content: 'Solid.',
      evidence: [{ uri: 'https://example.org/x', quote: 'q' }],
    };
    const r = await app.http.inject({ method: 'POST', url: '/v2/search/comments', headers: { 'x-api-key': a.key }, payload: body });
    return r.json() as { comment_id: number; status: string };
  };
  const first = await submit();
  assert.equal(first.status, 'pending_review');
  const pending = await cli(['comments', 'pending']);
  assert.equal(pending.code, 0);
  assert.deepEqual((pending.out as { comment_id: number }[]).map((c) => c.comment_id), [first.comment_id]);

  assert.deepEqual((await cli(['comments', 'publish', String(first.comment_id)])).out, { comment_id: first.comment_id, status: 'published' });
  assert.equal((await submit()).status, 'pending_review', 'publishing one comment does not approve its author');
  assert.deepEqual((await cli(['comments', 'approve-author', String(a.id)])).out, { account_id: a.id, author: 'approved' });
  assert.deepEqual(await cli(['comments', 'pending']).then((r) => r.out), []);
  assert.equal((await submit()).status, 'published');
  assert.equal((await app.community.listComments('h1', null)).length, 3);

  assert.equal((await cli(['comments', 'remove', String(first.comment_id)])).code, 0);
  assert.equal((await app.community.listComments('h1', null)).length, 2);
  assert.equal((await cli(['comments', 'suspend-author', String(a.id)])).code, 0);
  assert.equal((await app.community.listComments('h1', null)).length, 0);

  assert.equal((await cli(['comments', 'remove', '999999'])).code, 1);
  assert.equal((await cli(['comments', 'remove', 'x'])).code, 2);
  assert.equal((await cli(['comments', 'frobnicate'])).code, 2);
});
