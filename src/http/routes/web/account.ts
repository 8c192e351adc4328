// The account page (issue 11): balance, usage history from the ledger, API keys (create, shown once;
// list; revoke) and password change. Every form carries the session's CSRF token; every operation is
// scoped to the signed-in person's own account by SelfService.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { FormProblem } from '../../../auth/index.js';
import { AppError } from '../../../domain/errors.js';
import { toAppError } from '../../errors.js';
import { accountPageBody, errorMessage } from '../../pages/web-pages.js';
import type { Person } from '../auth/web.js';
import { documentHref, type PageContext } from './index.js';
import { BROWSER_READ_OPERATION, browserReadDocument } from '../../../documents/document-service.js';

const hide = { hide: true };
const formConfig = { auth: 'none' as const, rateScope: 'signin' as const };
const pageConfig = { auth: 'none' as const, rateScope: null };
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const when = (seconds: number) => new Date(seconds * 1000).toISOString().slice(0, 16).replace('T', ' ');

/** Ledger operations in words. */
const OPERATIONS: Record<string, string> = {
  search: 'Search',
  document_fetch: 'Document read (API)',
  document_read: 'Document text (web)',
  references: 'References',
  topup: 'Top-up',
  refund: 'Refund',
  document_passages: 'Search in a document',
  recognition: 'Recognition',
  conversation_turn: 'Ask',
  conversation_edit: 'Ask (edited question)',
};

export const ACCOUNT_ACTIONS = { createKey: '/account/keys', revokeKey: '/account/keys/revoke', password: '/account/password' } as const;

export function registerAccountPages(app: FastifyInstance, ctx: PageContext): void {
  const { web, deps } = ctx;
  const self = deps.selfService;
  const auth = deps.auth;
  if (!self || !auth) return;
  const body = (request: FastifyRequest) => (request.body ?? {}) as Record<string, unknown>;

  /** The document a browser read was for (its title, or its id when it is gone). */
  const chargedDocument = async (reference: string | null) => {
    const r = browserReadDocument(reference);
    if (!r) return null;
    const doc = await deps.documents.get(r.documentId).catch(() => null);
    return { href: documentHref(r.documentId), title: doc?.title || r.documentId };
  };

  const accountPage = async (request: FastifyRequest, reply: FastifyReply, person: Person, o: { notice?: string; newKey?: string; problem?: AppError; status?: number } = {}) => {
    const id = person.account.id;
    const [balance, keys, usage] = await Promise.all([self.balance(id), self.keysOf(id), self.usage(id, 50)]);
    return ctx.send(
      request,
      reply,
      'Your account',
      accountPageBody({
        email: person.account.email,
        balance,
        csrf: web.csrf(request, reply, person),
        notice: o.notice ?? null,
        problem: o.problem ? errorMessage({ status: o.problem.status, code: o.problem.code, message: o.problem.message }, { accountHref: ctx.accountHref }) : null,
        newKey: o.newKey ?? null,
        keys: keys.map((k) => ({ id: k.id, label: k.label, created: when(k.createdAt), revoked: k.revokedAt === null ? null : when(k.revokedAt) })),
        usage: await Promise.all(
          usage.map(async (u) => ({ at: when(u.createdAt), operation: OPERATIONS[u.operation] ?? u.operation, amount: u.amount, balanceAfter: u.balanceAfter, reference: u.reference, referenceIsRequest: u.operation !== 'topup', document: u.operation === BROWSER_READ_OPERATION ? await chargedDocument(u.reference) : null })),
        ),
        createKeyAction: ACCOUNT_ACTIONS.createKey,
        revokeKeyAction: ACCOUNT_ACTIONS.revokeKey,
        passwordAction: ACCOUNT_ACTIONS.password,
        agentsHref: web.path('account'),
      }),
      { person, status: o.status, wide: false },
    );
  };

  /** The person of a form post, CSRF checked; null after redirecting a signed-out browser. */
  const formPerson = async (request: FastifyRequest, reply: FastifyReply): Promise<Person | null> => {
    const person = await web.person(request);
    if (!person) {
      await reply.code(303).redirect(web.signInLocation(ctx.accountHref));
      return null;
    }
    web.checkCsrf(request, reply, person, body(request).csrf);
    return person;
  };

  app.get(ctx.accountHref, { config: pageConfig, schema: hide }, async (request, reply) => {
    const person = await ctx.requirePerson(request, reply);
    if (!person) return reply;
    return accountPage(request, reply, person);
  });

  // The new key is shown in this response only (never stored, never in a URL).
  app.post(ACCOUNT_ACTIONS.createKey, { config: formConfig, schema: hide }, async (request, reply) => {
    const person = await formPerson(request, reply);
    if (!person) return reply;
    try {
      const { key } = await self.createKey(person.account.id, str(body(request).label));
      return accountPage(request, reply, person, { newKey: key, notice: 'A new API key was created.' });
    } catch (e) {
      const err = toAppError(e, request);
      if (err.status >= 500) throw e;
      return accountPage(request, reply, person, { problem: err, status: err.status });
    }
  });

  app.post(ACCOUNT_ACTIONS.revokeKey, { config: formConfig, schema: hide }, async (request, reply) => {
    const person = await formPerson(request, reply);
    if (!person) return reply;
    const keyId = str(body(request).key);
    try {
      await self.revokeKey(person.account.id, keyId);
    } catch (e) {
      const err = toAppError(e, request);
      if (err.status >= 500) throw e;
      return accountPage(request, reply, person, { problem: err, status: err.status });
    }
    return accountPage(request, reply, person, { notice: `Key lk_${keyId} is revoked: requests with it now get 401.` });
  });

  app.post(ACCOUNT_ACTIONS.password, { config: formConfig, schema: hide }, async (request, reply) => {
    const person = await formPerson(request, reply);
    if (!person) return reply;
    if (person.auto) throw new AppError('forbidden', 'The automatic-consent test account has no password to change here.');
    const b = body(request);
    let token: string;
    try {
      token = await auth.people.changePassword(person.account.id, str(b.current), str(b.next));
    } catch (e) {
      if (!(e instanceof FormProblem)) throw e;
      return accountPage(request, reply, person, { problem: new AppError('validation_failed', e.message), status: 400 });
    }
    web.setSession(reply, token);
    const signed = await auth.people.session(token);
    const fresh: Person = signed ? { account: signed.account, sessionId: signed.sessionId, auto: false } : person;
    return accountPage(request, reply, fresh, { notice: 'Your password is changed; your other browsers are signed out.' });
  });
}
