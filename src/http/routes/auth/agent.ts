// The service_auth claim flow over HTTP: registration (POST /v2/agent/identity), a new claim attempt
// (POST /v2/agent/identity/claim), the verification page (verification_uri) and the browser-only
// approval endpoint (claim_complete_uri), plus the agent guide (`skill`).
import { Type } from 'typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { FormProblem } from '../../../auth/index.js';
import { AppError } from '../../../domain/errors.js';
import type { VerificationView } from '../../../auth/claims.js';
import { nowSeconds } from '../../../ports/clock.js';
import type { Clock } from '../../../ports/clock.js';
import { messageBody, unverifiedBody, verificationBody } from '../../pages/auth-pages.js';
import { errorResponses, HtmlPage, mediaResponse, ref } from '../../schemas/common.js';
import { requestRateSubject } from './rate-keys.js';
import { AgentRegistration } from '../../schemas/agent-identity.js';
import { agentGuide } from './skill.js';
import { cors, preflight, type Person, type Web } from './web.js';

/** The identity endpoints take JSON only (interface: `Content-Type: application/json`). */
function jsonOnly(request: FastifyRequest): void {
  if (!/^application\/json/i.test(String(request.headers['content-type'] ?? ''))) {
    throw new AppError('unsupported_media_type', 'Send the request as JSON (Content-Type: application/json).');
  }
}

export function registerAgentRoutes(app: FastifyInstance, web: Web, clock: Clock): void {
  const { auth } = web;
  const tags = ['agent identity'];

  app.post(
    web.path('identity'),
    {
      config: { auth: 'none', rateScope: 'oauth', rateAddressScope: 'oauthAddress', rateSubject: requestRateSubject('identity'), validationStatus: 400 },
      schema: {
        summary: 'Register a headless agent for the service_auth claim flow.',
        description: 'JSON {type: "service_auth", login_hint: <account email>}. Anonymous registration, other types and external identity assertions get 400.',
        tags,
        security: [],
        response: { 201: ref(AgentRegistration), ...errorResponses(400, 415, 429) },
      },
    },
    async (request, reply) => {
      cors(reply);
      reply.header('Cache-Control', 'no-store');
      jsonOnly(request);
      return reply.code(201).send(await auth.claims.register(request.body));
    },
  );
  app.post(
    web.path('claim'),
    {
      config: { auth: 'none', rateScope: 'oauth', rateAddressScope: 'oauthAddress', rateSubject: requestRateSubject('claim'), validationStatus: 400 },
      schema: {
        summary: 'Start a new claim attempt for a registration (Lectern: authenticated by its unexpired claim token).',
        description:
          'JSON {claim_token}. Answers the registration record again: same registration_id and claim_token, new user_code, verification_uri and expiry; the previous verification_uri stops working. 401 for an unknown or expired claim token; 409 when the registration is already approved or has used its 5 attempts.',
        tags,
        security: [],
        response: { 200: ref(AgentRegistration), ...errorResponses(400, 401, 409, 415, 429) },
      },
    },
    async (request, reply) => {
      cors(reply);
      reply.header('Cache-Control', 'no-store');
      jsonOnly(request);
      return auth.claims.restart(request.body);
    },
  );
  for (const p of ['identity', 'claim'] as const) {
    app.options(web.path(p), { config: { auth: 'none', rateScope: null }, schema: { hide: true } }, async (request, reply) => preflight(request, reply, 'POST, OPTIONS'));
  }

  app.get(
    web.path('skill'),
    { config: { auth: 'none', rateScope: null }, schema: { summary: 'Guide for agents: how to connect to Lectern (OAuth or service_auth).', tags, security: [], response: { 200: mediaResponse('The guide, in Markdown.', { 'text/markdown': Type.String() }) } } },
    async (_request, reply) => {
      cors(reply);
      return reply.type('text/markdown; charset=utf-8').send(agentGuide(web));
    },
  );

  const render = (request: FastifyRequest, reply: FastifyReply, person: Person, attempt: string | undefined, view: VerificationView, problem?: string | null) => {
    const csrf = web.csrf(request, reply, person);
    const o = { person, csrf };
    switch (view.kind) {
      case 'invalid':
        return web.page(reply, 'This link does not work', messageBody('This verification link is unknown or was replaced by a newer one. Ask your agent for its current link.', [], 'problem'), { ...o, status: 404 });
      case 'expired':
        return web.page(reply, 'This request has expired', messageBody('The agent waited too long. Ask it to start again.', [], 'problem'), { ...o, status: 410 });
      case 'decided':
        return web.page(
          reply,
          view.status === 'denied' ? 'Request denied' : 'Agent approved',
          view.status === 'denied'
            ? messageBody('The agent was refused. It will stop asking.', [{ href: web.path('account'), label: 'Your connected agents' }])
            : messageBody('The agent is connected to your account; it will pick up its access within a few seconds. You can close this page.', [{ href: web.path('account'), label: 'Your connected agents' }], 'ok'),
          o,
        );
      case 'other_account':
        return web.page(
          reply,
          'This request is for another account',
          messageBody(`You are signed in as ${person.account.email}, but the agent asked for ${view.maskedHint}. Sign out and sign in with that account to approve it.`, [], 'problem'),
          { ...o, status: 403 },
        );
      case 'unverified':
        return web.page(reply, 'Confirm your email address first', unverifiedBody({ email: person.account.email, action: web.path('resendVerification'), csrf }), { ...o, status: 403 });
      case 'ready':
        return web.page(
          reply,
          'Connect an agent to your account?',
          verificationBody({
            action: web.path('claimComplete'),
            csrf,
            attempt: attempt!,
            userCode: view.userCode,
            email: person.account.email,
            attemptsLeft: view.attemptsLeft,
            expiresIn: view.expiresAt - nowSeconds(clock),
            problem,
          }),
          { ...o, status: problem ? 400 : 200 },
        );
    }
  };

  app.get(
    web.path('verify'),
    { config: { auth: 'none', rateScope: null, authErrors: 'page' }, schema: { hide: true } },
    async (request, reply) => {
      const attempt = (request.query as Record<string, unknown>).attempt;
      const token = typeof attempt === 'string' ? attempt : undefined;
      const person = await web.person(request);
      if (!person) return reply.code(302).header('Cache-Control', 'no-store').redirect(web.signInLocation(`${web.path('verify')}?attempt=${encodeURIComponent(token ?? '')}`));
      const view = person.auto ? await auth.claims.autoApprove(token, person.account) : await auth.claims.view(token, person.account);
      return render(request, reply, person, token, view);
    },
  );

  // claim_complete_uri: only a signed-in browser (session cookie + CSRF token), never the agent.
  app.post(
    web.path('claimComplete'),
    {
      config: { auth: 'none', rateScope: 'signin', authErrors: 'page' },
      schema: {
        summary: 'Browser approval of a service_auth claim (claim_complete_uri): signed-in session and CSRF token required; never called by the agent.',
        tags,
        security: [],
        response: {
          200: HtmlPage('The claim page with the decision, or asking again (wrong code, no decision).'),
          400: HtmlPage('An error page (a malformed form).'),
          401: HtmlPage('Sign in first.'),
          403: HtmlPage('An error page (a form without a valid CSRF token).'),
          429: HtmlPage('Too many attempts from this address; try again later.'),
        },
      },
    },
    async (request, reply) => {
      const body = (request.body ?? {}) as Record<string, unknown>;
      const token = typeof body.attempt === 'string' ? body.attempt : undefined;
      const person = await web.person(request);
      if (!person) {
        return web.page(reply, 'Sign in first', messageBody('Approving an agent needs you signed in, in this browser.', [{ href: web.signInLocation(`${web.path('verify')}?attempt=${encodeURIComponent(token ?? '')}`), label: 'Sign in' }], 'problem'), {
          status: 401,
        });
      }
      web.checkCsrf(request, reply, person, body.csrf);
      const decision = body.decision === 'deny' ? 'deny' : body.decision === 'approve' ? 'approve' : null;
      if (!decision) return render(request, reply, person, token, await auth.claims.view(token, person.account), 'Choose Approve or Deny.');
      try {
        const status = await auth.claims.decide(token, person.account, decision, typeof body.user_code === 'string' ? body.user_code : undefined);
        return render(request, reply, person, token, { kind: 'decided', status });
      } catch (e) {
        if (!(e instanceof FormProblem)) throw e;
        return render(request, reply, person, token, await auth.claims.view(token, person.account), e.message);
      }
    },
  );
}
