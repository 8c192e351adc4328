// People's pages: sign-in, sign-up, sign-out, email confirmation, password links and the account page
// with connected agents. Plain HTML forms, each with a CSRF token; sessions in HttpOnly, SameSite=Lax
// cookies (Secure on https).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { FormProblem } from '../../../auth/index.js';
import { nowSeconds, type Clock } from '../../../ports/clock.js';
import { accountBody, confirmEmailBody, emailFormBody, messageBody, setPasswordBody, signInBody, signUpBody, type ConnectionRow } from '../../pages/auth-pages.js';
import { STYLESHEET } from '../../pages/html.js';
import type { Web } from './web.js';

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const pageRoute = { auth: 'none' as const, rateScope: null, authErrors: 'page' as const };
const formRoute = { auth: 'none' as const, rateScope: 'signin' as const, authErrors: 'page' as const };
const hide = { hide: true };

export function registerBrowserRoutes(app: FastifyInstance, web: Web, clock: Clock): void {
  const { auth } = web;
  const body = (request: FastifyRequest) => (request.body ?? {}) as Record<string, unknown>;

  app.get(web.path('style'), { config: { auth: 'none', rateScope: null }, schema: hide }, async (_request, reply) =>
    reply.type('text/css; charset=utf-8').header('Cache-Control', 'public, max-age=3600').send(STYLESHEET),
  );

  const signInPage = async (request: FastifyRequest, reply: FastifyReply, o: { problem?: string | null; email?: string; notice?: string | null; status?: number } = {}) => {
    const q = request.query as Record<string, unknown>;
    const returnTo = web.safeReturn(str(body(request).return_to) || q.return_to);
    const csrf = web.csrf(request, reply, null);
    return web.page(
      reply,
      'Sign in to Lectern',
      signInBody({
        action: web.path('signIn'),
        csrf,
        returnTo,
        email: o.email,
        problem: o.problem,
        notice: o.notice,
        signUpHref: auth.settings.allowSignUp ? `${web.path('signUp')}?return_to=${encodeURIComponent(returnTo)}` : null,
        forgotHref: web.path('forgotPassword'),
      }),
      { status: o.status },
    );
  };

  app.get(web.path('signIn'), { config: pageRoute, schema: hide }, async (request, reply) => {
    const person = await web.person(request);
    if (person) return reply.code(302).redirect(web.safeReturn((request.query as Record<string, unknown>).return_to));
    return signInPage(request, reply);
  });
  app.post(web.path('signIn'), { config: formRoute, schema: hide }, async (request, reply) => {
    const b = body(request);
    web.checkCsrf(request, reply, null, b.csrf);
    const result = await auth.people.signIn(str(b.email), str(b.password));
    if (!result) return signInPage(request, reply, { problem: 'Wrong email or password.', email: str(b.email), status: 401 });
    web.setSession(reply, result.token);
    return reply.code(303).redirect(web.safeReturn(b.return_to));
  });

  app.get(web.path('signUp'), { config: pageRoute, schema: hide }, async (request, reply) => {
    const csrf = web.csrf(request, reply, null);
    if (!auth.settings.allowSignUp) return web.page(reply, 'Sign-up is closed', messageBody('Ask the operator of this Lectern for an account.'), { status: 403 });
    return web.page(reply, 'Create a Lectern account', signUpBody({ action: web.path('signUp'), csrf, returnTo: web.safeReturn((request.query as Record<string, unknown>).return_to), signInHref: web.path('signIn') }));
  });
  app.post(web.path('signUp'), { config: formRoute, schema: hide }, async (request, reply) => {
    const b = body(request);
    web.checkCsrf(request, reply, null, b.csrf);
    try {
      await auth.people.signUp(str(b.email), str(b.password));
    } catch (e) {
      if (!(e instanceof FormProblem)) throw e;
      const csrf = web.csrf(request, reply, null);
      return web.page(reply, 'Create a Lectern account', signUpBody({ action: web.path('signUp'), csrf, returnTo: web.safeReturn(b.return_to), email: str(b.email), problem: e.message, signInHref: web.path('signIn') }), { status: 400 });
    }
    return web.page(reply, 'Check your email', messageBody(`We sent a message to ${str(b.email).trim().toLowerCase()}. Open its link to confirm the address, then sign in.`, [{ href: web.signInLocation(web.safeReturn(b.return_to)), label: 'Sign in' }], 'ok'));
  });

  app.post(web.path('signOut'), { config: pageRoute, schema: hide }, async (request, reply) => {
    const person = await web.person(request);
    web.checkCsrf(request, reply, person, body(request).csrf);
    await auth.people.signOut(request.cookies[web.sessionCookie]);
    web.clearSession(reply);
    return reply.code(303).redirect(web.path('signIn'));
  });

  const forgotPage = (request: FastifyRequest, reply: FastifyReply, problem?: string) =>
    web.page(
      reply,
      'Set or reset your password',
      emailFormBody({ action: web.path('forgotPassword'), csrf: web.csrf(request, reply, null), problem, explain: 'Enter your account email; we send you a link to choose a password (valid for an hour).', button: 'Email me a link' }),
    );
  app.get(web.path('forgotPassword'), { config: pageRoute, schema: hide }, async (request, reply) => forgotPage(request, reply));
  app.post(web.path('forgotPassword'), { config: formRoute, schema: hide }, async (request, reply) => {
    const b = body(request);
    web.checkCsrf(request, reply, null, b.csrf);
    await auth.people.requestPasswordLink(str(b.email));
    // Same answer whether or not the address has an account.
    return web.page(reply, 'Check your email', messageBody('If that address has a Lectern account, a link to set the password is on its way.', [{ href: web.path('signIn'), label: 'Sign in' }], 'ok'));
  });

  const linkPage = async (request: FastifyRequest, reply: FastifyReply, purpose: 'verify' | 'password', token: string, problem?: string) => {
    const account = await auth.people.peekLink(token, purpose);
    const csrf = web.csrf(request, reply, null);
    if (!account) return web.page(reply, 'This link does not work', messageBody('The link is invalid, already used or expired.', [{ href: web.path(purpose === 'verify' ? 'signIn' : 'forgotPassword'), label: purpose === 'verify' ? 'Sign in' : 'Ask for a new link' }], 'problem'), { status: 400 });
    return purpose === 'verify'
      ? web.page(reply, 'Confirm your email address', confirmEmailBody({ action: web.path('verifyEmail'), csrf, token, email: account.email }))
      : web.page(reply, 'Choose a password', setPasswordBody({ action: web.path('setPassword'), csrf, token, email: account.email, problem }), { status: problem ? 400 : 200 });
  };
  // GET shows a confirmation form; only the POST uses the link, so mail scanners that fetch links do not consume them.
  app.get(web.path('verifyEmail'), { config: pageRoute, schema: hide }, async (request, reply) => linkPage(request, reply, 'verify', str((request.query as Record<string, unknown>).token)));
  app.post(web.path('verifyEmail'), { config: formRoute, schema: hide }, async (request, reply) => {
    const b = body(request);
    web.checkCsrf(request, reply, null, b.csrf);
    try {
      await auth.people.useLink(str(b.token), 'verify');
    } catch (e) {
      if (!(e instanceof FormProblem)) throw e;
      return web.page(reply, 'This link does not work', messageBody(e.message, [], 'problem'), { status: 400 });
    }
    return web.page(reply, 'Email address confirmed', messageBody('Thank you. Sign in to continue.', [{ href: web.path('signIn'), label: 'Sign in' }], 'ok'));
  });
  app.get(web.path('setPassword'), { config: pageRoute, schema: hide }, async (request, reply) => linkPage(request, reply, 'password', str((request.query as Record<string, unknown>).token)));
  app.post(web.path('setPassword'), { config: formRoute, schema: hide }, async (request, reply) => {
    const b = body(request);
    web.checkCsrf(request, reply, null, b.csrf);
    try {
      await auth.people.useLink(str(b.token), 'password', str(b.password));
    } catch (e) {
      if (!(e instanceof FormProblem)) throw e;
      return linkPage(request, reply, 'password', str(b.token), e.message);
    }
    web.clearSession(reply);
    return web.page(reply, 'Password set', messageBody('Your password is set and your address confirmed. Sign in with it now.', [{ href: web.path('signIn'), label: 'Sign in' }], 'ok'));
  });

  app.post(web.path('resendVerification'), { config: formRoute, schema: hide }, async (request, reply) => {
    const person = await web.person(request);
    if (!person) return reply.code(303).redirect(web.signInLocation(web.path('account')));
    web.checkCsrf(request, reply, person, body(request).csrf);
    await auth.people.resendVerification(person.account);
    return web.page(reply, 'Check your email', messageBody(`A confirmation link is on its way to ${person.account.email}.`, [{ href: web.path('account'), label: 'Your account' }], 'ok'), {
      person,
      csrf: web.csrf(request, reply, person),
    });
  });

  const accountPage = async (request: FastifyRequest, reply: FastifyReply, notice?: string) => {
    const person = await web.person(request);
    if (!person) return reply.code(302).redirect(web.signInLocation(web.path('account')));
    const csrf = web.csrf(request, reply, person);
    const now = nowSeconds(clock);
    const rows: ConnectionRow[] = [];
    for (const g of await auth.store.oauth.listGrantsOf(person.account.id)) {
      const client = g.clientId ? await auth.clients.get(g.clientId) : null;
      const expired = g.expiresAt !== null && g.expiresAt <= now;
      rows.push({
        id: g.id,
        what: g.kind === 'service_auth' ? 'Agent (service_auth)' : (client?.clientName ?? 'Unnamed application'),
        detail: g.kind === 'service_auth' ? `registration ${g.registrationId}` : `client ${g.clientId}${client ? `, returns to ${new URL(client.redirectUris[0]!).host}` : ''}`,
        created: new Date(g.createdAt * 1000).toISOString().slice(0, 16).replace('T', ' ') + ' UTC',
        status: g.revokedAt !== null ? 'disconnected' : expired ? 'expired' : 'connected',
        active: g.revokedAt === null && !expired,
      });
    }
    return web.page(
      reply,
      'Your account',
      accountBody({
        email: person.account.email,
        verified: person.account.emailVerified,
        csrf,
        revokeAction: web.path('revokeConnection'),
        resendAction: web.path('resendVerification'),
        passwordHref: web.path('forgotPassword'),
        connections: rows,
        notice,
      }),
      { person, csrf },
    );
  };
  app.get(web.path('account'), { config: pageRoute, schema: hide }, async (request, reply) => accountPage(request, reply));
  app.post(web.path('revokeConnection'), { config: pageRoute, schema: hide }, async (request, reply) => {
    const person = await web.person(request);
    if (!person) return reply.code(303).redirect(web.signInLocation(web.path('account')));
    const b = body(request);
    web.checkCsrf(request, reply, person, b.csrf);
    const grant = await auth.store.oauth.getGrant(str(b.grant));
    if (grant && grant.accountId === person.account.id) await auth.store.oauth.revokeGrant(grant.id, nowSeconds(clock));
    return accountPage(request, reply, 'The agent is disconnected: its tokens stopped working.');
  });
}
