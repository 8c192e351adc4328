// The auth routes in their own Fastify context: cookies, form bodies and an error handler that
// answers OAuth endpoints in RFC 6749 shape (decision 2), pages as HTML, and the agent identity
// endpoints as ApiError. Nothing here changes how the rest of the API parses or answers.
import fastifyCookie from '@fastify/cookie';
import fastifyFormbody from '@fastify/formbody';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isOAuthError } from '../../../auth/index.js';
import type { HttpDeps } from '../../deps.js';
import { sendError, toAppError } from '../../errors.js';
import { messageBody } from '../../pages/auth-pages.js';
import { registerAgentRoutes } from './agent.js';
import { registerBrowserRoutes } from './browser.js';
import { registerOAuthRoutes } from './oauth.js';
import { sendOAuthError, Web } from './web.js';

/** Path of {auth_url} relative to {base_url} ('' when they are equal). */
export function authPrefix(authUrl: string, baseUrl: string): string {
  const a = new URL(authUrl).pathname.replace(/\/+$/, '');
  const b = new URL(baseUrl).pathname.replace(/\/+$/, '');
  return a.startsWith(b) ? a.slice(b.length) : a;
}

const wantsHtml = (request: FastifyRequest) => /text\/html|\*\/\*/.test(String(request.headers.accept ?? '')) || request.headers.accept === undefined;

export async function registerAuthRoutes(app: FastifyInstance, deps: HttpDeps): Promise<void> {
  const auth = deps.auth;
  if (!auth) return;
  const web = new Web(auth, authPrefix(deps.config.authUrl, deps.config.baseUrl));
  await app.register(async (child) => {
    await child.register(fastifyCookie);
    await child.register(fastifyFormbody, { bodyLimit: 64 * 1024 });
    child.setErrorHandler((err, request: FastifyRequest, reply: FastifyReply) => {
      const cfg = request.routeOptions.config ?? {};
      if (cfg.authErrors === 'oauth') return sendOAuthError(request, reply, err, cfg.revocation ? 'temporarily_unavailable' : 'server_error');
      if (cfg.authErrors === 'page' && (wantsHtml(request) || isOAuthError(err))) {
        if (isOAuthError(err)) return web.page(reply, 'This request is not valid', messageBody(`${err.message} (${err.error})`, [], 'problem'), { status: err.status });
        const e = toAppError(err, request);
        if (e.status >= 500) request.log.error({ err }, 'page failed');
        for (const [k, v] of Object.entries(e.headers)) reply.header(k, v);
        const text = e.status >= 500 ? `Something went wrong on our side. Quote ${request.id} if you report it.` : e.code === 'rate_limited' ? `Too many attempts: wait ${e.headers['Retry-After'] ?? 'a few'} seconds, then try again.` : e.message;
        return web.page(reply, e.status === 403 ? 'Not allowed' : e.status === 429 ? 'Slow down' : 'Something is wrong', messageBody(text, [{ href: web.path('account'), label: 'Your account' }], 'problem'), { status: e.status });
      }
      const e = toAppError(err, request);
      if (e.status >= 500) request.log.error({ err }, 'request failed');
      return sendError(reply, e);
    });
    registerOAuthRoutes(child, web, deps.rateLimits);
    registerAgentRoutes(child, web, auth.clock);
    registerBrowserRoutes(child, web, auth.clock);
  });
}
