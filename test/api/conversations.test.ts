// /v2/conversations/ through the app: turns with verified citations, follow-ups, date expressions,
// pinned documents, limits, steps and edits, sharing, deletion, listing, billing, activity, bad input,
// the LLM path with an in-process fake ChatModel (markers verified, re-anchored or removed; upstream
// failures charge nothing), and SSE streams over a real socket including client abort.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { testApp, type TestApp } from '../helpers/app.js';
import { doc, seed } from '../helpers/documents.js';
import { AppError } from '../../src/domain/errors.js';
import type { ChatModel, ChatModelRegistry, ChatRequest } from '../../src/ports/chat-model.js';
import { waitFor } from '../helpers/wait.js';

const Y = (y: number) => Date.UTC(y, 0, 1) / 1000;

/** A scripted in-process ChatModel (a test double of the port). */
class FakeModel implements ChatModel {
  calls: ChatRequest[] = [];
  reply: (r: ChatRequest) => string | Promise<string> = () => '';
  async complete(r: ChatRequest) {
    this.calls.push(r);
    const text = await this.reply(r);
    for (const piece of text.match(/.{1,20}/gs) ?? []) r.onDelta?.(piece);
    return { text, model: 'fake-1', inputTokens: null, outputTokens: null };
  }
}

describe('/v2/conversations/', () => {
  let app: TestApp;
  let acct: { id: number; key: string };
  let other: { id: number; key: string };
  const fake = new FakeModel();
  const registry: ChatModelRegistry = { resolve: (n) => (n === 'fake-gpt' ? { model: fake, providerModel: 'fake-1', contextTokens: 8000 } : null), names: () => ['fake-gpt'] };

  before(async () => {
    app = await testApp({ rateLimits: { conversations: { capacity: 1000, refillPerSecond: 1000 } } } as never, { chatModels: registry });
    acct = await app.account({ credits: 100_000 });
    other = await app.account({ credits: 100_000 });
    await seed(app, [
      doc('h1', { title: 'Underground hydrogen storage in salt caverns', abstract: 'Salt caverns offer tight storage for hydrogen gas. Cushion gas keeps the cavern pressure stable during withdrawal.', type: 'journal-article', language: 'en', issuedAt: Y(2022) }),
      doc('h2', { title: 'Hydrogen storage in depleted gas reservoirs', abstract: 'Depleted reservoirs can store hydrogen at large scale. Microbial activity in reservoirs consumes part of the stored hydrogen.', type: 'review', language: 'en', issuedAt: Y(2008) }),
      doc('m1', { title: 'Hydrogen effects in mice', abstract: 'Mice breathing hydrogen showed reduced oxidative stress. The effect was strongest in older mice.', type: 'journal-article', language: 'en', issuedAt: Y(2019) }),
      doc('x1', { title: 'Sandstone porosity', abstract: 'Sandstone porosity controls fluid flow in aquifers.', type: 'journal-article', language: 'en', issuedAt: Y(2015) }),
    ]);
    await app.indexes!.catchUp();
  });
  after(() => app.dispose());

  const call = async (method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', url: string, payload?: unknown, key = acct.key) => {
    const res = await app.http.inject({ method, url, headers: { 'x-api-key': key }, ...(payload === undefined ? {} : { payload: payload as object }) });
    return { status: res.statusCode, body: res.body ? res.json() : null, headers: res.headers };
  };
  const ask = (body: Record<string, unknown>, key = acct.key) => call('POST', '/v2/conversations/', { llm_config: { model_name: 'lectern-extractive' }, ...body }, key);
  // settlements run after delivery (and group commit, ADR 0136): read the books once they are written
  const balance = async (id = acct.id) => {
    await app.billing.idle();
    return app.billing.balance(id);
  };

  /** Every citation: excerpt verbatim in the document text and in the snippet it points at. */
  function assertVerified(r: { answer: string; citations: { citation_index: number; document_index: number; excerpt: string; snippet_index: number }[]; search_documents: { document: { id: string }; snippets: { text: string }[] }[] }) {
    const markers = r.answer.match(/\[(\d+)\]/g) ?? [];
    assert.equal(markers.length, r.citations.length, 'one CitationOccurrence per marker');
    r.citations.forEach((c, i) => {
      assert.equal(c.citation_index, i);
      assert.equal(markers[i], `[${c.document_index}]`);
      const sd = r.search_documents[c.document_index - 1]!;
      assert.ok(sd.snippets[c.snippet_index]!.text.includes(c.excerpt), 'snippet holds the excerpt');
    });
  }

  test('a turn answers with verified citations, stores request and response steps, bills once, records activity', async () => {
    const before = await balance();
    const { status, body } = await ask({ query: 'How is hydrogen stored in salt caverns?' });
    assert.equal(status, 200, JSON.stringify(body));
    assert.ok(body.answer.length > 20);
    assert.ok(body.citations.length > 0);
    assertVerified(body);
    for (const c of body.citations) {
      const stored = await app.storage.documents.getMany([body.search_documents[c.document_index - 1].document.id]);
      const d = [...stored.values()][0]!;
      assert.ok(`${d.title}\n${d.abstract}`.includes(c.excerpt), 'excerpt verbatim in the document');
    }
    assert.equal(body.model_name, 'lectern-extractive');
    assert.equal(body.id, 1, 'the response step\'s position');
    assert.ok(body.query.keywords.includes('hydrogen'));
    assert.equal(before - (await balance()), 100);
    const full = await call('GET', `/v2/conversations/${body.conversation_id}`);
    assert.equal(full.status, 200);
    assert.deepEqual(full.body.conversation_steps.map((s: { kind: string }) => s.kind), ['request', 'response']);
    assert.equal(full.body.conversation_steps[0].llm_config.api_key, undefined);
    assert.match(full.body.conversation_metadata.slug, /^how-is-hydrogen-stored-in-salt-caverns-[0-9a-f]{8}$/);
    assert.equal(full.body.conversation_metadata.title, 'How is hydrogen stored in salt caverns?');
    assert.ok(full.body.conversation_metadata.preview.length > 0);
  });

  test('activity: the answer\'s documents count as shown, the cited ones as AI citations', async () => {
    const now = () => Math.floor(app.clock.nowMs() / 1000);
    await app.activity.flush();
    const before = await app.storage.activity.counts('x1', now());
    const r = await ask({ query: 'sandstone porosity aquifers' });
    assert.equal(r.body.search_documents[0].document.id, 'x1');
    assert.ok(r.body.citations.some((c: { document_index: number }) => c.document_index === 1), JSON.stringify(r.body));
    await app.activity.flush();
    const after = await app.storage.activity.counts('x1', now());
    assert.equal(after.shown7d - before.shown7d, 1);
    assert.equal(after.aiCitations7d - before.aiCitations7d, 1);
  });

  test('a follow-up searches with the earlier topic; the slug also addresses it', async () => {
    const first = await ask({ query: 'hydrogen storage in salt caverns' });
    const follow = await ask({ query: 'what about in mice?', conversation_id: first.body.conversation_id });
    assert.equal(follow.status, 200);
    assert.ok(follow.body.query.classified_aspects.includes('follow_up'));
    assert.ok(follow.body.query.keywords.includes('mice') && follow.body.query.keywords.includes('hydrogen'));
    assert.equal(follow.body.search_documents[0].document.id, 'm1');
    const full = await call('GET', `/v2/conversations/${first.body.conversation_id}`);
    assert.equal(full.body.conversation_steps.length, 4);
  });

  test('date expressions filter retrieval: "since 2020", "before 2010", "in the last five years"', async () => {
    const since = await ask({ query: 'hydrogen storage since 2020' });
    assert.equal(since.body.query.date_expression, 'since 2020');
    assert.deepEqual(since.body.query.date[0], Y(2020));
    assert.ok(since.body.search_documents.every((d: { document: { id: string } }) => d.document.id !== 'h2'));
    const before2010 = await ask({ query: 'hydrogen storage before 2010' });
    assert.deepEqual(before2010.body.search_documents.map((d: { document: { id: string } }) => d.document.id), ['h2']);
    const last5 = await ask({ query: 'hydrogen in the last five years' });
    assert.equal(last5.body.query.date[0], Y(2021));
    assert.ok(last5.body.search_documents.every((d: { document: { id: string } }) => ['h1'].includes(d.document.id)));
  });

  test('pinned document_ids come first; max_model_documents caps what reaches the answerer; limit bounds retrieval', async () => {
    const r = await ask({ query: 'hydrogen storage', document_ids: ['x1'], max_model_documents: 2 });
    assert.equal(r.status, 200);
    assert.equal(r.body.search_documents[0].document.id, 'x1');
    assert.equal(r.body.search_documents.length, 2);
    const lim = await ask({ query: 'hydrogen', limit: 1 });
    assert.equal(lim.body.search_documents.length, 1);
    assert.equal((await ask({ query: 'hydrogen', limit: 100 })).status, 200);
    const over = await ask({ query: 'hydrogen', limit: 101 });
    assert.equal(over.status, 422, 'a limit above the maximum is refused, not clamped');
    assert.equal(over.body.detail.code, 'validation_failed');
    assert.match(over.body.detail.message, /at most 100/);
    const unknown = await ask({ query: 'hydrogen', document_ids: ['nope'] });
    assert.equal(unknown.status, 400);
  });

  test('bad input: empty, blank, oversize query; unknown model (422 naming the offered ones); nothing charged', async () => {
    const before = await balance();
    assert.equal((await ask({ query: '' })).status, 400);
    assert.equal((await ask({ query: '   ' })).status, 400);
    assert.equal((await ask({ query: 'x'.repeat(16385) })).status, 400);
    const unk = await ask({ query: 'hydrogen', llm_config: { model_name: 'gpt-9' } });
    assert.equal(unk.status, 422);
    assert.match(unk.body.detail.message, /lectern-extractive/);
    assert.match(unk.body.detail.message, /fake-gpt/);
    assert.equal((await ask({ query: 'hydrogen', conversation_id: 'no-such' })).status, 404);
    assert.equal(await balance(), before);
  });

  test('402 before any work when the balance is short: no conversation is created', async () => {
    const poor = await app.account({ credits: 50 });
    const r = await ask({ query: 'hydrogen' }, poor.key);
    assert.equal(r.status, 402);
    assert.equal((await call('GET', '/v2/conversations/', undefined, poor.key)).body.conversations.length, 0);
  });

  test('editing the first request recomputes it and every later step; bills the edit once; a response step is 404', async () => {
    const a = await ask({ query: 'hydrogen salt caverns' });
    const id = a.body.conversation_id;
    await ask({ query: 'what about in mice?', conversation_id: id });
    const before = await balance();
    const e = await call('PUT', `/v2/conversations/${id}/edit-step/0`, { new_query: 'sandstone porosity' });
    assert.equal(e.status, 200, JSON.stringify(e.body));
    const steps = e.body.conversation_steps;
    assert.deepEqual(steps.map((s: { kind: string }) => s.kind), ['request', 'response', 'request', 'response']);
    assert.equal(steps[0].query, 'sandstone porosity');
    assert.equal(steps[1].search_documents[0].document.id, 'x1');
    assert.equal(steps[2].query, 'what about in mice?');
    assert.equal(before - (await balance()), 100);
    assert.equal(e.body.conversation_metadata.title, 'sandstone porosity');
    assert.equal((await call('PUT', `/v2/conversations/${id}/edit-step/1`, { new_query: 'x' })).status, 404);
    assert.equal((await call('PUT', `/v2/conversations/${id}/edit-step/99`, { new_query: 'x' })).status, 404);
    assert.equal((await call('PUT', `/v2/conversations/${id}/edit-step/0`, { new_query: '' })).status, 400);
    assert.equal((await call('PUT', `/v2/conversations/${id}/edit-step/0`, { new_query: 'x' }, other.key)).status, 404);
  });

  test('sharing: private is 404 to others; shared is readable; PATCH/DELETE by others 404; unknown properties 400; delete', async () => {
    const a = await ask({ query: 'hydrogen reservoirs' });
    const slug = (await call('GET', `/v2/conversations/${a.body.conversation_id}`)).body.conversation_metadata.slug;
    assert.equal((await call('GET', `/v2/conversations/${slug}`, undefined, other.key)).status, 404);
    assert.equal((await call('PATCH', `/v2/conversations/${slug}`, { is_shared: true }, other.key)).status, 404);
    assert.equal((await call('PATCH', `/v2/conversations/${slug}`, { is_shared: true, extra: 1 })).status, 400);
    const before = await balance();
    const p = await call('PATCH', `/v2/conversations/${slug}`, { is_shared: true });
    assert.equal(p.status, 200);
    assert.equal(p.body.conversation_metadata.is_shared, true);
    assert.equal(await balance(), before, 'PATCH is not billed');
    const read = await call('GET', `/v2/conversations/${slug}`, undefined, other.key);
    assert.equal(read.status, 200);
    // Readable without a credential too, as the web page is; private ones ask for a credential.
    const anon = await app.http.inject({ method: 'GET', url: `/v2/conversations/${slug}` });
    assert.equal(anon.statusCode, 200, anon.body);
    assert.equal(anon.json().conversation_metadata.slug, slug);
    assert.ok(!anon.body.includes('feedback_token":"'), 'no feedback token for an anonymous reader');
    const priv = await ask({ query: 'hydrogen caverns private' });
    const anonPrivate = await app.http.inject({ method: 'GET', url: `/v2/conversations/${priv.body.conversation_id}` });
    assert.equal(anonPrivate.statusCode, 401);
    assert.equal((await app.http.inject({ method: 'GET', url: '/v2/conversations/no-such-slug' })).statusCode, 401);
    assert.equal((await app.http.inject({ method: 'GET', url: `/v2/conversations/${slug}`, headers: { 'x-api-key': 'wrong' } })).statusCode, 401, 'a bad credential is still refused');
    assert.equal((await ask({ query: 'more', conversation_id: slug }, other.key)).status, 404, 'only the owner continues it');
    assert.equal((await call('DELETE', `/v2/conversations/${slug}`, undefined, other.key)).status, 404);
    // DELETE without a body, whatever Content-Type the client names.
    const del = await app.http.inject({ method: 'DELETE', url: `/v2/conversations/${slug}`, headers: { 'x-api-key': acct.key, 'content-type': 'application/json' } });
    assert.equal(del.statusCode, 200, del.body);
    const priv2 = await ask({ query: 'hydrogen caverns again' });
    const del2 = await app.http.inject({ method: 'DELETE', url: `/v2/conversations/${priv2.body.conversation_id}`, headers: { 'x-api-key': acct.key, 'content-type': 'text/plain' } });
    assert.equal(del2.statusCode, 200, del2.body);
    assert.equal((await call('GET', `/v2/conversations/${slug}`)).status, 404);
    assert.equal((await call('DELETE', `/v2/conversations/${slug}`)).status, 404);
  });

  test('feedback on an answer: the owner gets a feedback token for each response, rates its sources with it; a reader of a shared conversation gets none', async () => {
    const a = await ask({ query: 'hydrogen storage in salt caverns' });
    assert.equal(a.status, 200);
    const tr = a.body.trajectory as { id: string; feedback_token: string | null };
    assert.ok(tr && typeof tr.feedback_token === 'string' && tr.feedback_token.length > 20, 'the turn returns a token');
    const ratings = (a.body.search_documents as { document: { id: string } }[]).slice(0, 2).map((d, i) => ({ document_id: d.document.id, relevance: 3 - i }));
    const before = await balance();
    const fb = await call('POST', '/v2/search/feedback', { trajectory_id: tr.id, feedback_token: tr.feedback_token, feedback_id: crypto.randomUUID(), ratings });
    assert.equal(fb.status, 200, JSON.stringify(fb.body));
    assert.equal(await balance(), before, 'feedback is not billed');
    // Another account cannot use the owner's token.
    const stolen = await call('POST', '/v2/search/feedback', { trajectory_id: tr.id, feedback_token: tr.feedback_token, feedback_id: crypto.randomUUID(), ratings }, other.key);
    assert.equal(stolen.status, 403);
    assert.equal(stolen.body.detail.code, 'invalid_feedback_token');
    // Reading the conversation back: the owner gets a (fresh) token per response step, other readers none.
    const id = a.body.conversation_id as string;
    const mine = await call('GET', `/v2/conversations/${id}`);
    const resp = (mine.body.conversation_steps as { trajectory?: { id: string; feedback_token: string | null } }[]).filter((s) => s.trajectory);
    assert.equal(resp.length, 1);
    assert.equal(resp[0]!.trajectory!.id, tr.id);
    assert.ok(resp[0]!.trajectory!.feedback_token);
    const again = await call('POST', '/v2/search/feedback', { trajectory_id: tr.id, feedback_token: resp[0]!.trajectory!.feedback_token, feedback_id: crypto.randomUUID(), ratings: [{ document_id: ratings[0]!.document_id, relevance: 0 }] });
    assert.equal(again.status, 200);
    await call('PATCH', `/v2/conversations/${id}`, { is_shared: true });
    const theirs = await call('GET', `/v2/conversations/${id}`, undefined, other.key);
    assert.equal(theirs.status, 200);
    const steps = (theirs.body.conversation_steps as { trajectory?: { id: string; feedback_token: string | null } }[]).filter((s) => s.trajectory);
    assert.equal(steps[0]!.trajectory!.feedback_token, null, 'a shared reader cannot rate the owner\'s retrieval');
  });

  test('listing: the caller’s conversations only, newest first, paged', async () => {
    const fresh = await app.account({ credits: 10_000 });
    const ids: string[] = [];
    for (const q of ['hydrogen one', 'hydrogen two', 'hydrogen three']) ids.push((await ask({ query: q }, fresh.key)).body.conversation_id);
    const l = await call('GET', '/v2/conversations/', undefined, fresh.key);
    assert.deepEqual(l.body.conversations.map((c: { id: string }) => c.id), ids.reverse());
    assert.equal(l.body.conversations[0].user_id, fresh.id);
    assert.equal((await call('GET', '/v2/conversations/?page=1', undefined, fresh.key)).body.conversations.length, 0);
  });

  test('LLM path: the prompt numbers passages; valid markers verified, wrong ones re-anchored, unsupported ones removed', async () => {
    fake.calls = [];
    fake.reply = (r) => {
      const msg = r.messages.at(-1)!.content;
      assert.match(msg, /\[1\] /);
      // [1] is right when passage 1 is about caverns; [7] does not exist; [2] for an unsupported claim.
      return 'Salt caverns offer tight storage for hydrogen gas [1]. Microbial activity consumes stored hydrogen [99]. Bananas are yellow [1].';
    };
    const r = await ask({ query: 'hydrogen storage salt caverns reservoirs', llm_config: { model_name: 'fake-gpt', api_key: 'sk-secret' } });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(fake.calls[0]!.apiKey, 'sk-secret');
    assert.equal(r.body.model_name, 'fake-gpt');
    assertVerified(r.body);
    assert.equal(r.body.citations.length, 2, 'the banana marker is removed');
    assert.ok(/Microbial/.test(r.body.citations[1].excerpt), 'the unknown number is re-anchored to the supporting passage');
    assert.ok(!JSON.stringify((await call('GET', `/v2/conversations/${r.body.conversation_id}`)).body).includes('sk-secret'));
  });

  test('LLM path: max_context_length budgets the prompt, pinned passages last to go', async () => {
    fake.reply = () => 'Nothing [1].';
    const passagesSent = async (budget: number | null) => {
      fake.calls = [];
      const r = await ask({ query: 'hydrogen storage', document_ids: ['x1'], llm_config: { model_name: 'fake-gpt', max_context_length: budget } });
      assert.equal(r.status, 200);
      const msg = fake.calls[0]!.messages.at(-1)!.content;
      return { msg, n: (msg.match(/^\[\d+\] /gm) ?? []).length };
    };
    const full = await passagesSent(null);
    const tight = await passagesSent(250);
    assert.ok(tight.n >= 1 && tight.n < full.n, `${tight.n} < ${full.n}`);
    assert.match(tight.msg, /Sandstone porosity/, 'the pinned passage stays');
  });

  test('LLM path: a provider failure or timeout is 502/504, charges nothing and stores nothing (question and answer are stored together)', async () => {
    const before = await balance();
    const listed = (await call('GET', '/v2/conversations/')).body.conversations.length;
    fake.reply = () => {
      throw new AppError('upstream_error', 'fake provider answered 500');
    };
    const r = await ask({ query: 'hydrogen', llm_config: { model_name: 'fake-gpt' } });
    assert.equal(r.status, 502);
    fake.reply = () => {
      throw new AppError('upstream_timeout');
    };
    assert.equal((await ask({ query: 'hydrogen', llm_config: { model_name: 'fake-gpt' } })).status, 504);
    assert.equal(await balance(), before);
    assert.equal((await call('GET', '/v2/conversations/')).body.conversations.length, listed, 'a failed first turn leaves no conversation');
    // A failed follow-up leaves the conversation as it was.
    const ok = await ask({ query: 'hydrogen storage', llm_config: { model_name: 'lectern-extractive' } });
    assert.equal(ok.status, 200);
    const failed = await ask({ query: 'and in salt?', conversation_id: ok.body.conversation_id, llm_config: { model_name: 'fake-gpt' } });
    assert.equal(failed.status, 504);
    const steps = (await call('GET', `/v2/conversations/${ok.body.conversation_id}`)).body.conversation_steps;
    assert.deepEqual(steps.map((s: { kind: string }) => s.kind), ['request', 'response']);
  });

  describe('streams over a real socket', () => {
    let port: number;
    before(async () => {
      await app.http.listen({ port: 0, host: '127.0.0.1' });
      port = (app.http.server.address() as AddressInfo).port;
    });

    const post = (path: string, body: unknown, method = 'POST', onChunk?: (text: string, req: ReturnType<typeof httpRequest>) => void) =>
      new Promise<{ status: number; type: string; text: string }>((resolve, reject) => {
        const req = httpRequest({ host: '127.0.0.1', port, path, method, headers: { 'x-api-key': acct.key, 'content-type': 'application/json' } }, (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => {
            text += c;
            onChunk?.(text, req);
          });
          res.on('end', () => resolve({ status: res.statusCode!, type: String(res.headers['content-type']), text }));
          res.on('error', () => resolve({ status: res.statusCode!, type: String(res.headers['content-type']), text }));
        });
        req.on('error', (e) => (onChunk ? resolve({ status: 0, type: '', text: '' }) : reject(e)));
        req.end(JSON.stringify(body));
      });
    const events = (text: string) => [...text.matchAll(/event: (\w+)\ndata: (.*)\n\n/g)].map((m) => ({ event: m[1]!, data: JSON.parse(m[2]!) }));

    test('progress events, deltas, then the final ConversationResponse', async () => {
      const r = await post('/v2/conversations/stream', { query: 'hydrogen salt caverns', llm_config: { model_name: 'lectern-extractive' } });
      assert.equal(r.status, 200);
      assert.match(r.type, /text\/event-stream/);
      const ev = events(r.text);
      const kinds = ev.map((e) => e.event);
      assert.deepEqual(kinds.slice(0, 5), ['accepted', 'classified', 'searching', 'retrieved', 'answering']);
      assert.ok(kinds.includes('delta'));
      assert.equal(kinds.at(-1), 'result');
      assertVerified(ev.at(-1)!.data);
      assert.equal(ev.filter((e) => e.event === 'delta').map((e) => e.data.text).join(''), ev.at(-1)!.data.answer, 'extractive deltas add up to the answer');
    });

    test('refusals before work are ordinary errors; an upstream failure after headers is a final error event', async () => {
      const bad = await post('/v2/conversations/stream', { query: 'hydrogen', llm_config: { model_name: 'gpt-9' } });
      assert.equal(bad.status, 422);
      const before = await balance();
      fake.reply = () => {
        throw new AppError('upstream_error', 'fake provider answered 500');
      };
      const r = await post('/v2/conversations/stream', { query: 'hydrogen', llm_config: { model_name: 'fake-gpt' } });
      assert.equal(r.status, 200);
      const last = events(r.text).at(-1)!;
      assert.equal(last.event, 'error');
      assert.equal(last.data.detail.code, 'upstream_error');
      assert.equal(await balance(), before);
    });

    test('a client that disconnects aborts the work and is charged nothing', async () => {
      const before = await balance();
      let aborted = false;
      fake.reply = (req) =>
        new Promise((_resolve, reject) => {
          req.signal.addEventListener('abort', () => {
            aborted = true;
            reject(req.signal.reason);
          });
        });
      await post('/v2/conversations/stream', { query: 'hydrogen', llm_config: { model_name: 'fake-gpt' } }, 'POST', (text, req) => {
        if (text.includes('event: answering')) req.destroy();
      });
      await waitFor('the model call saw the abort', () => aborted);
      await new Promise((r) => setTimeout(r, 50));
      assert.equal(await balance(), before);
    });

    test('the JSON turn also stops when its client goes away, and charges nothing', async () => {
      const before = await balance();
      let aborted = false;
      let called!: () => void;
      const inModel = new Promise<void>((r) => (called = r));
      fake.reply = (req) =>
        new Promise((_resolve, reject) => {
          called();
          req.signal.addEventListener('abort', () => {
            aborted = true;
            reject(req.signal.reason);
          });
        });
      const req = httpRequest({ host: '127.0.0.1', port, path: '/v2/conversations/', method: 'POST', headers: { 'x-api-key': acct.key, 'content-type': 'application/json' } });
      req.on('error', () => undefined);
      req.end(JSON.stringify({ query: 'hydrogen', llm_config: { model_name: 'fake-gpt' } }));
      await inModel;
      req.destroy();
      await waitFor('the model call saw the abort', () => aborted);
      await new Promise((r) => setTimeout(r, 50));
      assert.equal(await balance(), before);
    });

    test('the edit-step stream ends with the FullConversation', async () => {
      const a = await ask({ query: 'hydrogen salt caverns' });
      const r = await post(`/v2/conversations/${a.body.conversation_id}/edit-step/0/stream`, { new_query: 'hydrogen in mice' }, 'PUT');
      assert.equal(r.status, 200);
      const last = events(r.text).at(-1)!;
      assert.equal(last.event, 'result');
      assert.equal(last.data.conversation_steps[1].search_documents[0].document.id, 'm1');
    });
  });
});
