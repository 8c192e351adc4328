// Ask (issue 11 over the conversations of issue 9): the question box and the person's conversations at
// /ask, a conversation page with answers whose markers open the cited passage highlighted on the
// document page, the documents used, follow-up questions, editing a question (recomputed answers), the
// share switch and its link, delete. Without JavaScript the forms post and the finished answer renders;
// /assets/ask.js streams the answer over POST /ask/stream (the events of docs/events.md, with the
// session cookie and CSRF token instead of an API key). Shared conversations are readable signed out.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ConversationView, TurnOptions } from '../../../conversations/index.js';
import type { ConversationStepRecord, RequestStepData, ResponseStepData } from '../../../domain/conversation.js';
import { AppError } from '../../../domain/errors.js';
import { toAppError } from '../../errors.js';
import { html } from '../../pages/html.js';
import { askFormHtml, askHomeBody, conversationBody, errorMessage, type TurnView } from '../../pages/web-pages.js';
import { sse } from '../v2/conversations.js';
import type { Person } from '../auth/web.js';
import { documentHref, sessionPrincipal, workView, type PageContext } from './index.js';

const hide = { hide: true };
const pageConfig = { auth: 'none' as const, rateScope: null };
const formConfig = { auth: 'none' as const, rateScope: 'conversations' as const };
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
export const ASK_PATH = '/ask';
const conversationHref = (slug: string) => `${ASK_PATH}/${encodeURIComponent(slug)}`;

/** The script that streams answers (progressive enhancement; the forms work without it). */
export const ASK_SCRIPT = `
(function () {
  var forms = document.querySelectorAll('form.ask[data-stream]');
  Array.prototype.forEach.call(forms, function (form) {
    if (!window.fetch || !window.TextDecoder || !window.ReadableStream) return;
    form.addEventListener('submit', function (ev) {
      ev.preventDefault();
      var live = form.querySelector('.live');
      var button = form.querySelector('button[type=submit]');
      live.hidden = false;
      live.textContent = '';
      // The stages as they end (docs/events.md), then the answer as it grows.
      var stages = document.createElement('ol');
      stages.className = 'stages';
      var text = document.createElement('p');
      text.className = 'growing';
      live.appendChild(stages);
      live.appendChild(text);
      function stage(s) {
        var li = document.createElement('li');
        li.textContent = s;
        stages.appendChild(li);
      }
      stage('Sending your question…');
      button.disabled = true;
      var answer = '';
      var body = new URLSearchParams(new FormData(form));
      fetch(form.getAttribute('data-stream'), { method: 'POST', body: body, credentials: 'same-origin', headers: { accept: 'text/event-stream' } }).then(function (res) {
        if (!res.ok || !res.body) { form.submit(); return; }
        var reader = res.body.getReader();
        var decoder = new TextDecoder();
        var buffer = '';
        function handle(kind, data) {
          if (kind === 'accepted') stage('Question received.');
          else if (kind === 'classified') stage('Understood as: ' + ((data.query && data.query.reformulated_query) || 'your question') + '.');
          else if (kind === 'searching') stage('Searching the library…');
          else if (kind === 'retrieved') stage('Found ' + data.documents + ' documents; reading ' + data.selected + '.');
          else if (kind === 'answering') stage('Writing the answer…');
          else if (kind === 'delta') { answer += data.text; text.textContent = answer; }
          else if (kind === 'result') { stage('Done; opening the conversation.'); window.location.assign(data.href); }
          else if (kind === 'error') { stage((data.detail && data.detail.message) || 'The answer failed; nothing was charged.'); button.disabled = false; }
        }
        function pump() {
          return reader.read().then(function (r) {
            if (r.done) return;
            buffer += decoder.decode(r.value, { stream: true });
            var parts = buffer.split('\\n\\n');
            buffer = parts.pop();
            parts.forEach(function (block) {
              var kind = '', data = '';
              block.split('\\n').forEach(function (line) {
                if (line.indexOf('event: ') === 0) kind = line.slice(7);
                else if (line.indexOf('data: ') === 0) data += line.slice(6);
              });
              try { handle(kind, JSON.parse(data)); } catch (e) { /* ignore unknown events */ }
            });
            return pump();
          });
        }
        return pump();
      }).catch(function () { form.submit(); });
    });
  });
})();
`;

/** The turns of a conversation as the page shows them (markers linked to highlighted passages). */
export function turnViews(v: ConversationView): TurnView[] {
  const out: TurnView[] = [];
  const steps: ConversationStepRecord[] = v.steps;
  for (let i = 0; i < steps.length; i++) {
    const s = steps[i]!;
    if (s.kind !== 'request') continue;
    const next = steps[i + 1];
    const req = s.data as RequestStepData;
    if (!next || next.kind !== 'response') {
      out.push({ requestStep: s.position, question: req.query, answer: null });
      continue;
    }
    const r = next.data as ResponseStepData;
    const docs = r.documents.map((d, k) => ({ n: k + 1, doc: v.documents.get(d.documentId) ?? null }));
    const cited = new Set(r.citations.map((c) => c.documentIndex));
    out.push({
      requestStep: s.position,
      question: req.query,
      answer: {
        text: r.answer,
        citations: r.citations.map((c) => {
          const doc = docs[c.documentIndex - 1]?.doc ?? null;
          return {
            n: c.documentIndex,
            excerpt: c.excerpt,
            title: doc?.title ?? 'a document no longer in Lectern',
            // A full-text excerpt names its section (ADR 0242); its link opens the passage in the full text.
            section: c.section ?? null,
            fullText: c.offset !== undefined,
            href: doc ? `${documentHref(doc.id)}?highlight=${encodeURIComponent(c.excerpt)}#cited` : '#',
          };
        }),
        // The documents the answer cites, by their marker numbers.
        documents: docs.filter((d) => d.doc && cited.has(d.n)).map((d) => ({ n: d.n, work: workView(d.doc!) })),
      },
    });
  }
  return out;
}

export function registerAskPages(app: FastifyInstance, ctx: PageContext): void {
  const { web, deps } = ctx;
  const svc = deps.conversations;
  if (!svc) return;
  const body = (request: FastifyRequest) => (request.body ?? {}) as Record<string, unknown>;
  const models = () => svc.modelNames();

  app.get('/assets/ask.js', { config: pageConfig, schema: hide }, async (_request, reply) =>
    reply.type('text/javascript; charset=utf-8').header('Cache-Control', 'public, max-age=3600').send(ASK_SCRIPT),
  );

  const home = async (request: FastifyRequest, reply: FastifyReply, person: Person | null, problem?: AppError) => {
    if (!person) return ctx.send(request, reply, 'Ask', askHomeBody({ form: null, signInHref: web.signInLocation(ASK_PATH), conversations: [], problem: null }), { person, wide: false });
    const csrf = web.csrf(request, reply, person);
    const list = await svc.list(sessionPrincipal(person));
    return ctx.send(
      request,
      reply,
      'Ask',
      askHomeBody({
        form: askFormHtml({ action: ASK_PATH, csrf, conversation: null, label: 'Your question', models: models(), id: 'query' }),
        signInHref: null,
        conversations: list.map((c) => ({ href: conversationHref(c.slug), title: c.title ?? '(untitled)', preview: c.preview, updated: new Date(c.updatedAt * 1000).toISOString().slice(0, 10), shared: c.isShared })),
        script: true,
        problem: problem ? errorMessage({ status: problem.status, code: problem.code, message: problem.message, retryAfter: problem.headers['Retry-After'] ?? null }, { accountHref: ctx.accountHref }) : null,
      }),
      { person, wide: false, status: problem?.status },
    );
  };

  app.get(ASK_PATH, { config: pageConfig, schema: hide }, async (request, reply) => home(request, reply, await web.person(request)));

  const formPerson = async (request: FastifyRequest, reply: FastifyReply): Promise<Person | null> => {
    const person = await web.person(request);
    if (!person) {
      await reply.code(303).redirect(web.signInLocation(ASK_PATH));
      return null;
    }
    web.checkCsrf(request, reply, person, body(request).csrf);
    return person;
  };

  const turnInput = (b: Record<string, unknown>) => {
    const model = str(b.model) || models()[0]!;
    return { query: str(b.query).trim(), modelName: model, apiKey: null, maxContextLength: null, conversationId: str(b.conversation) || null, documentIds: [], limit: null, maxModelDocuments: null, sourcesFilters: null, sourcesLiteralFilters: null, resolvedSourcesLiteralFilters: null };
  };

  // Without JavaScript: the turn runs, then the conversation page shows the finished answer.
  app.post(ASK_PATH, { config: formConfig, schema: hide }, async (request, reply) => {
    const person = await formPerson(request, reply);
    if (!person) return reply;
    try {
      await ctx.limit('conversations', person);
      const r = await svc.turn(sessionPrincipal(person), turnInput(body(request)), { requestId: request.id });
      return reply.code(303).redirect(`${conversationHref(r.conversation.slug)}`);
    } catch (e) {
      const err = toAppError(e, request);
      if (err.status >= 500) throw e;
      for (const [k, v] of Object.entries(err.headers)) reply.header(k, v);
      return home(request, reply, person, err);
    }
  });

  // With JavaScript: the same turn as server-sent events; the result event carries the page to open.
  app.post(`${ASK_PATH}/stream`, { config: formConfig, schema: hide }, async (request, reply) => {
    const person = await formPerson(request, reply);
    if (!person) return reply;
    await ctx.limit('conversations', person);
    return sse(request, reply, async (opts: TurnOptions) => {
      const r = await svc.turn(sessionPrincipal(person), turnInput(body(request)), opts);
      return { href: `${conversationHref(r.conversation.slug)}`, conversation_id: r.conversation.id };
    });
  });

  const page = async (request: FastifyRequest, reply: FastifyReply, slug: string, o: { notice?: string; problem?: AppError } = {}) => {
    const person = await web.person(request);
    let view: ConversationView;
    let owner = false;
    if (person) {
      try {
        view = await svc.get(sessionPrincipal(person), slug);
        owner = view.conversation.accountId === person.account.id;
      } catch (e) {
        if (!(e instanceof AppError && e.code === 'not_found')) throw e;
        view = await svc.getShared(slug);
      }
    } else {
      view = await svc.getShared(slug);
    }
    const c = view.conversation;
    const href = conversationHref(c.slug);
    const csrf = owner && person ? web.csrf(request, reply, person) : '';
    const problem = o.problem ? errorMessage({ status: o.problem.status, code: o.problem.code, message: o.problem.message, retryAfter: o.problem.headers['Retry-After'] ?? null }, { accountHref: ctx.accountHref }) : null;
    const body = conversationBody({
      turns: turnViews(view),
      notice: o.notice ?? null,
      problem,
      owner: owner
        ? {
            csrf,
            shared: c.isShared,
            shareHref: `${deps.config.baseUrl.replace(/\/+$/, '')}${href}`,
            shareAction: `${href}/share`,
            deleteAction: `${href}/delete`,
            editAction: (step) => `${href}/edit/${step}`,
            followUp: askFormHtml({ action: ASK_PATH, csrf, conversation: c.id, label: 'Follow-up question', models: models(), id: 'follow-up' }),
          }
        : null,
    });
    const script = owner ? html`<script src="/assets/ask.js" defer></script>` : html``;
    return ctx.send(request, reply, c.title ?? 'Conversation', html`${body}${script}`, { person, wide: false, status: o.problem?.status });
  };

  app.get<{ Params: { slug: string } }>(`${ASK_PATH}/:slug`, { config: pageConfig, schema: hide }, async (request, reply) => page(request, reply, request.params.slug));

  app.post<{ Params: { slug: string; step: string } }>(`${ASK_PATH}/:slug/edit/:step`, { config: formConfig, schema: hide }, async (request, reply) => {
    const person = await formPerson(request, reply);
    if (!person) return reply;
    const step = Number(request.params.step);
    if (!Number.isInteger(step) || step < 0) throw new AppError('not_found', 'No such step.');
    try {
      await ctx.limit('conversations', person);
      const v = await svc.editStep(sessionPrincipal(person), request.params.slug, step, str(body(request).query).trim(), { requestId: request.id });
      return reply.code(303).redirect(conversationHref(v.conversation.slug));
    } catch (e) {
      const err = toAppError(e, request);
      if (err.status >= 500 || err.status === 404) throw e;
      return page(request, reply, request.params.slug, { problem: err });
    }
  });

  app.post<{ Params: { slug: string } }>(`${ASK_PATH}/:slug/share`, { config: formConfig, schema: hide }, async (request, reply) => {
    const person = await formPerson(request, reply);
    if (!person) return reply;
    const shared = str(body(request).shared) === '1';
    const v = await svc.setShared(sessionPrincipal(person), request.params.slug, shared);
    return page(request, reply, v.conversation.slug, { notice: shared ? 'Shared: anyone with the link can read this conversation.' : 'No longer shared.' });
  });

  app.post<{ Params: { slug: string } }>(`${ASK_PATH}/:slug/delete`, { config: formConfig, schema: hide }, async (request, reply) => {
    const person = await formPerson(request, reply);
    if (!person) return reply;
    await svc.delete(sessionPrincipal(person), request.params.slug);
    return reply.code(303).redirect(ASK_PATH);
  });
}
