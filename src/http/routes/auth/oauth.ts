// The OAuth 2.0 authorization server endpoints: RFC 8414 metadata, JWKS, RFC 7591 registration, the
// authorization endpoint with sign-in and consent, the token endpoint and RFC 7009 revocation.
import { Type } from 'typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { allLoopback } from '../../../auth/redirect-uris.js';
import type { AuthorizationRequest, Params } from '../../../auth/authorization.js';
import { basicCredentials, presentedClient, singleParams } from '../../../auth/token-endpoint.js';
import { OAuthError } from '../../../auth/oauth-error.js';
import type { RateLimitService } from '../../../limits/rate-limit-service.js';
import type { RateScope } from '../../../config/index.js';
import { consentBody, messageBody, unverifiedBody } from '../../pages/auth-pages.js';
import { HtmlPage, NoBody, ref } from '../../schemas/common.js';
import { AuthorizationServerMetadata, ClientInformation, OAuthErrorResponse, TokenResponse } from '../../schemas/oauth.js';
import { cors, oauthJson, preflight, type Person, type Web } from './web.js';
import { requestRateSubject, tokenRateSubject } from './rate-keys.js';

const oauthRoute = { auth: 'none' as const, rateScope: 'oauth' as const, rateAddressScope: 'oauthAddress' as const, authErrors: 'oauth' as const };
const tags = ['oauth'];

export function registerOAuthRoutes(app: FastifyInstance, web: Web, rateLimits: RateLimitService<RateScope>): void {
  const { auth } = web;

  // RFC 8414 metadata at {auth_url}/.well-known/... and, when auth_url has a path, at the RFC 8414
  // path-inserted location too (requirement 25).
  const metadataPaths = [...new Set([`${web.prefix}/.well-known/oauth-authorization-server`, `/.well-known/oauth-authorization-server${web.prefix}`])];
  for (const url of metadataPaths) {
    app.get(
      url,
      {
        config: { auth: 'none', rateScope: null },
        schema: { summary: 'Authorization server metadata (RFC 8414) with the agent_auth object.', tags, security: [], response: { 200: ref(AuthorizationServerMetadata) } },
      },
      async (_request, reply) => {
        cors(reply);
        reply.header('Cache-Control', 'public, max-age=300');
        return auth.metadata();
      },
    );
  }
  app.get(
    web.path('jwks'),
    { config: { auth: 'none', rateScope: null }, schema: {
        summary: 'Public keys of access tokens and identity assertions (JWKS).',
        tags,
        security: [],
        response: { 200: Type.Object({ keys: Type.Array(Type.Object({}, { additionalProperties: true })) }, { additionalProperties: true, description: 'A JSON Web Key Set (RFC 7517).' }) },
      } },
    async (_request, reply) => {
      cors(reply);
      reply.header('Cache-Control', 'public, max-age=300');
      return auth.keys.jwks();
    },
  );
  for (const url of [...metadataPaths, web.path('jwks')]) {
    app.options(url, { config: { auth: 'none', rateScope: null }, schema: { hide: true } }, async (request, reply) => preflight(request, reply, 'GET, OPTIONS'));
  }
  for (const p of ['register', 'token', 'revoke'] as const) {
    app.options(web.path(p), { config: { auth: 'none', rateScope: null }, schema: { hide: true } }, async (request, reply) => preflight(request, reply, 'POST, OPTIONS'));
  }

  app.post(
    web.path('register'),
    {
      config: { ...oauthRoute, rateSubject: requestRateSubject('register') },
      schema: {
        summary: 'Dynamic client registration (RFC 7591).',
        description: 'Public clients (token_endpoint_auth_method none) by default; client_secret_post or client_secret_basic get a secret. Unknown metadata is ignored.',
        tags,
        security: [],
        response: { 201: ref(ClientInformation), 400: ref(OAuthErrorResponse), 429: ref(OAuthErrorResponse) },
      },
    },
    async (request, reply) => oauthJson(reply, 201, await auth.clients.register(request.body)),
  );

  const consent = async (request: FastifyRequest, reply: FastifyReply, input: Params, method: 'GET' | 'POST') => {
    const check = await auth.authorization.check(input);
    if (check.kind === 'page') {
      return web.page(reply, 'This sign-in link is not valid', messageBody(`${check.description} (${check.error}) Lectern did not send you back to the application, because it cannot tell where that is safe. Start again from the application.`, [], 'problem'), { status: 400 });
    }
    if (check.kind === 'redirect') return reply.code(method === 'GET' ? 302 : 303).header('Cache-Control', 'no-store').redirect(check.location);
    const person = await web.person(request);
    if (!person) return reply.code(302).header('Cache-Control', 'no-store').redirect(web.signInLocation(`${web.path('authorize')}?${new URLSearchParams(check.request.params).toString()}`));
    const csrf = web.csrf(request, reply, person);
    if (person.auto) return reply.code(302).header('Cache-Control', 'no-store').redirect(await auth.authorization.approve(check.request, person.account.id));
    if (method === 'POST') {
      web.checkCsrf(request, reply, person, (request.body as Record<string, unknown>).csrf);
      const decision = (request.body as Record<string, unknown>).decision;
      if (decision === 'deny') return reply.code(303).header('Cache-Control', 'no-store').redirect(auth.authorization.deny(check.request));
      if (decision !== 'approve') throw new OAuthError('invalid_request', 'decision must be approve or deny');
      if (!person.account.emailVerified) return unverified(reply, person, csrf);
      return reply.code(303).header('Cache-Control', 'no-store').redirect(await auth.authorization.approve(check.request, person.account.id));
    }
    if (!person.account.emailVerified) return unverified(reply, person, csrf);
    return consentPage(reply, check.request, person, csrf);
  };

  const unverified = (reply: FastifyReply, person: Person, csrf: string) =>
    web.page(reply, 'Confirm your email address first', unverifiedBody({ email: person.account.email, action: web.path('resendVerification'), csrf }), { person, csrf, status: 403 });

  const consentPage = (reply: FastifyReply, r: AuthorizationRequest, person: Person, csrf: string) => {
    const target = new URL(r.redirectUri);
    return web.page(
      reply,
      'Allow this application?',
      consentBody({
        action: web.path('authorize'),
        csrf,
        clientName: r.client.clientName,
        callbackHost: target.host,
        redirectUri: r.redirectUri,
        loopbackOnly: allLoopback(r.client.redirectUris),
        clientUri: r.client.extra.client_uri ?? null,
        resource: r.resource,
        email: person.account.email,
        params: r.params,
      }),
      // Browsers apply form-action to the redirect after the form, so the callback origin is allowed.
      { person, csrf, formTargets: [target.origin] },
    );
  };

  app.get(
    web.path('authorize'),
    {
      config: { auth: 'none', rateScope: null, authErrors: 'page' },
      schema: {
        summary: 'OAuth 2.0 authorization endpoint (authorization code with mandatory S256 PKCE): sign-in, then consent in the browser.',
        description: 'Redirects to redirect_uri with code, state and iss, or with error, state and iss. Unknown client_id or unregistered redirect_uri: an error page, no redirect.',
        tags,
        security: [],
        response: {
          200: HtmlPage('The sign-in or consent page.'),
          302: NoBody('Back to redirect_uri with code, state and iss (or error, state and iss), or to the sign-in page.'),
          400: HtmlPage('An error page (unknown client_id, unregistered redirect_uri, bad parameters that cannot be sent back).'),
          403: HtmlPage('An error page (a form without a valid CSRF token).'),
        },
      },
    },
    async (request, reply) => consent(request, reply, request.query as Params, 'GET'),
  );
  app.post(
    web.path('authorize'),
    { config: { auth: 'none', rateScope: null, authErrors: 'page' }, schema: { hide: true } },
    async (request, reply) => consent(request, reply, (request.body ?? {}) as Params, 'POST'),
  );

  app.post(
    web.path('token'),
    {
      // Rate-limited inside, after the claim grant's terminal checks (requirement 81).
      config: { auth: 'none', rateScope: null, authErrors: 'oauth' },
      schema: {
        summary: 'Token endpoint (form-encoded): authorization_code, refresh_token, the service_auth claim grant and jwt-bearer renewal.',
        tags,
        security: [],
        response: { 200: ref(TokenResponse), 400: ref(OAuthErrorResponse), 401: ref(OAuthErrorResponse), 429: ref(OAuthErrorResponse) },
      },
    },
    async (request, reply) => {
      const body = formBody(request);
      // Per address (flood guard), then per address, grant and client (ADR 0083); called after the
      // claim grant's terminal answers, which are never rate limited (requirement 81).
      const basic = basicCredentials(request.headers.authorization);
      const limit = async () => {
        await rateLimits.check('oauthAddress', `ip:${request.ip}`);
        await rateLimits.check('oauth', `ip:${request.ip}|${tokenRateSubject(body, basic && basic !== 'malformed' ? basic.id : null)}`);
      };
      const result = await auth.tokenEndpoint.handle(body, request.headers.authorization, limit);
      return oauthJson(reply, 200, result);
    },
  );

  app.post(
    web.path('revoke'),
    {
      config: { ...oauthRoute, rateSubject: requestRateSubject('revoke'), revocation: true },
      schema: {
        summary: 'Token revocation (RFC 7009): access tokens, refresh tokens and identity assertions.',
        tags,
        security: [],
        response: {
          200: Type.Object({}, { description: 'Revoked, or the token was unknown (RFC 7009 §2.2): an empty object.' }),
          400: ref(OAuthErrorResponse),
          401: ref(OAuthErrorResponse),
          429: ref(OAuthErrorResponse),
          503: ref(OAuthErrorResponse),
        },
      },
    },
    async (request, reply) => {
      const form = singleParams(formBody(request));
      if (!form.token) throw new OAuthError('invalid_request', 'token is missing.');
      // A client that identifies itself must be a registered one (and prove its secret if it has one);
      // without client_id the token alone decides (service_auth tokens have no client: requirement 73).
      let clientId: string | null = null;
      if (form.client_id !== undefined || basicCredentials(request.headers.authorization) !== null) {
        clientId = (await auth.clients.authenticate(presentedClient(form, request.headers.authorization))).clientId;
      }
      await auth.tokens.revoke(form.token, clientId);
      return oauthJson(reply, 200, {});
    },
  );
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The revocation endpoint answers unexpected failures with 503 temporarily_unavailable (RFC 7009 §2.2.1). */
    revocation?: boolean;
  }
}

/** The form body of an OAuth POST (an empty body is an empty form). */
function formBody(request: FastifyRequest): Params {
  const ct = request.headers['content-type'] ?? '';
  if (request.body !== undefined && request.body !== null && !/^application\/x-www-form-urlencoded/i.test(ct)) {
    throw new OAuthError('invalid_request', 'Send the parameters form-encoded (application/x-www-form-urlencoded).');
  }
  return (request.body ?? {}) as Params;
}

