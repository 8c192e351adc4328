// Shared machinery of the auth routes: cookies, the signed-in person (or the test-only automatic
// consent account), CSRF bindings, security headers of pages, CORS of the OAuth endpoints, and the
// replies in RFC 6749 shape.
import { randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AUTH_PATHS, authUrl, type Auth } from '../../../auth/index.js';
import { isOAuthError } from '../../../auth/oauth-error.js';
import type { Account } from '../../../ports/account-store.js';
import { AppError, errorDetail } from '../../../domain/errors.js';
import { layout, type Html } from '../../pages/html.js';
import { noteRefusal } from '../../request-log.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** How errors of an auth route are answered: RFC 6749 JSON (`oauth`), an HTML page (`page`), else ApiError. */
    authErrors?: 'oauth' | 'page';
  }
}

export interface Person {
  account: Account;
  /** Session id (CSRF binding); `auto` under automatic consent. */
  sessionId: string;
  /** Signed in by LECTERN_AUTO_CONSENT (tests only). */
  auto: boolean;
}

export class Web {
  readonly sessionCookie: string;
  readonly browserCookie: string;
  readonly secure: boolean;
  /** Path prefix of {auth_url} (empty when auth_url = base_url). */
  readonly prefix: string;

  constructor(
    readonly auth: Auth,
    prefix: string,
  ) {
    this.secure = auth.settings.issuer.startsWith('https:');
    // __Host- cookies are bound to this host and path /, and need Secure (https only).
    this.sessionCookie = this.secure ? '__Host-lectern_session' : 'lectern_session';
    this.browserCookie = this.secure ? '__Host-lectern_browser' : 'lectern_browser';
    this.prefix = prefix;
  }

  /** Route path of an auth endpoint or page. */
  path(p: keyof typeof AUTH_PATHS): string {
    return `${this.prefix}${AUTH_PATHS[p]}`;
  }

  url(p: keyof typeof AUTH_PATHS): string {
    return authUrl(this.auth.settings, p);
  }

  private cookieOptions(maxAge: number) {
    return { path: '/', httpOnly: true, sameSite: 'lax' as const, secure: this.secure, maxAge };
  }

  setSession(reply: FastifyReply, token: string): void {
    reply.setCookie(this.sessionCookie, token, this.cookieOptions(this.auth.settings.sessionTtlSeconds));
  }

  clearSession(reply: FastifyReply): void {
    reply.clearCookie(this.sessionCookie, { path: '/', httpOnly: true, sameSite: 'lax', secure: this.secure });
  }

  /** The signed-in person: the automatic-consent account when configured (tests), else the session's. */
  async person(request: FastifyRequest): Promise<Person | null> {
    const auto = this.auth.settings.autoConsent;
    if (auto) {
      const account = await this.auth.accounts.getByEmail(auto);
      if (!account) throw new AppError('service_unavailable', `LECTERN_AUTO_CONSENT names ${auto}, which has no account; create it first.`);
      return { account, sessionId: 'auto', auto: true };
    }
    const signed = await this.auth.people.session(request.cookies[this.sessionCookie]);
    return signed ? { account: signed.account, sessionId: signed.sessionId, auto: false } : null;
  }

  /** The CSRF binding of this browser: its session, else its random browser cookie (set when missing). */
  binding(request: FastifyRequest, reply: FastifyReply, person: Person | null): string {
    if (person) return `s:${person.sessionId}`;
    let bid = request.cookies[this.browserCookie];
    if (!bid || !/^[A-Za-z0-9_-]{43}$/.test(bid)) {
      bid = randomBytes(32).toString('base64url');
      reply.setCookie(this.browserCookie, bid, this.cookieOptions(86_400 * 30));
      // The same request may render a form after this: let binding() see the new value.
      (request.cookies as Record<string, string>)[this.browserCookie] = bid;
    }
    return `b:${bid}`;
  }

  csrf(request: FastifyRequest, reply: FastifyReply, person: Person | null): string {
    return this.auth.csrf.token(this.binding(request, reply, person));
  }

  /** Throws a 403 page unless the form's CSRF token matches this browser (RFC 9700 §4.7). */
  checkCsrf(request: FastifyRequest, reply: FastifyReply, person: Person | null, presented: unknown): void {
    if (person?.auto) return;
    if (!this.auth.csrf.check(this.binding(request, reply, person), presented)) {
      throw new AppError('forbidden', 'This form has expired or did not come from Lectern. Go back, reload the page and try again.');
    }
  }

  /** Sends an HTML page with the clickjacking and content protections every page carries. */
  page(reply: FastifyReply, title: string, body: Html, o: { status?: number; person?: Person | null; csrf?: string; formTargets?: string[] } = {}): FastifyReply {
    const formAction = ["'self'", ...(o.formTargets ?? [])].join(' ');
    htmlPageHeaders(reply, o.status ?? 200, `default-src 'none'; style-src 'self'; img-src 'self'; form-action ${formAction}; frame-ancestors 'none'; base-uri 'none'`);
    const signedInAs = o.person && o.csrf && !o.person.auto ? { email: o.person.account.email, csrf: o.csrf, signOutAction: this.path('signOut'), accountHref: this.path('account') } : null;
    return reply.send(layout(title, body, { signedInAs, autoConsent: o.person?.auto ?? this.auth.settings.autoConsent !== null, styleHref: this.path('style') }));
  }

  /** A same-site path to return to after sign-in (never another site: no open redirect). */
  safeReturn(value: unknown): string {
    return safeReturnPath(value, this.auth.settings.issuer) ?? this.path('account');
  }

  signInLocation(returnTo: string): string {
    return `${this.path('signIn')}?return_to=${encodeURIComponent(returnTo)}`;
  }
}

/**
 * Where a page may send a person back to (`return_to`): resolved as a browser would (WHATWG URL, which
 * drops tabs and newlines and reads `\` as `/`) against `base`, and accepted only when it stays on the
 * same origin, and then only when its normalised path cannot be read as another host (`//` or `/\`). Control
 * characters are refused outright. Returns the path, query and fragment, or null.
 */
export function safeReturnPath(value: unknown, base: string): string | null {
  if (typeof value !== 'string' || value.length === 0 || value.length > 4096) return null;
  if (/[\u0000-\u001f\u007f]/.test(value) || !value.startsWith('/')) return null;
  let target: URL;
  let origin: string;
  try {
    origin = new URL(base).origin;
    target = new URL(value, base);
  } catch {
    return null;
  }
  if (target.origin !== origin) return null;
  // Same origin is not enough: the path we emit is read again by the browser, relative to the page. A
  // normalised path that starts with `//` (from `/.//x`, `/..//x`, `/a/..//x`, `/%2E//x`, `/./\\x`) is a
  // network-path reference to another host, so it is refused, never emitted (issue 25).
  const path = target.pathname;
  if (!path.startsWith('/') || path.startsWith('//') || path.includes('\\')) return null;
  // Backslashes in the query or fragment are harmless to the parser but are sent percent-encoded, so
  // nothing we emit holds one.
  return `${path}${target.search}${target.hash}`.replace(/\\/g, '%5C');
}

/** Status, type and the protections every HTML page carries (no caching, no framing, no sniffing, no referrer, `csp`). */
export function htmlPageHeaders(reply: FastifyReply, status: number, csp: string): FastifyReply {
  return reply
    .code(status)
    .type('text/html; charset=utf-8')
    .header('Cache-Control', 'no-store')
    .header('X-Frame-Options', 'DENY')
    .header('X-Content-Type-Options', 'nosniff')
    .header('Referrer-Policy', 'no-referrer')
    .header('Content-Security-Policy', csp);
}

/** CORS for the metadata and OAuth endpoints: any origin, never with credentials (requirement 92). */
export function cors(reply: FastifyReply): void {
  reply.header('Access-Control-Allow-Origin', '*');
  reply.header('Access-Control-Expose-Headers', 'X-Request-Id, Retry-After, WWW-Authenticate');
}

/** Answers a CORS preflight (requirements 38, 92). */
export function preflight(request: FastifyRequest, reply: FastifyReply, methods: string): FastifyReply {
  cors(reply);
  const asked = request.headers['access-control-request-headers'];
  reply.header('Access-Control-Allow-Methods', methods);
  reply.header('Access-Control-Allow-Headers', typeof asked === 'string' && /^[A-Za-z0-9\-_, ]{0,1000}$/.test(asked) ? asked : 'Authorization, Content-Type, MCP-Protocol-Version');
  reply.header('Access-Control-Max-Age', '86400');
  reply.header('Vary', 'Access-Control-Request-Headers');
  return reply.code(204).send();
}

/** A JSON reply of an OAuth endpoint: no caching (RFC 6749 §5.1). */
export function oauthJson(reply: FastifyReply, status: number, body: unknown): FastifyReply {
  cors(reply);
  return reply.code(status).header('Cache-Control', 'no-store').header('Pragma', 'no-cache').type('application/json; charset=utf-8').send(body);
}

/**
 * Any error of an OAuth endpoint in RFC 6749 shape (decision 2). 429 carries both shapes: `error`
 * for OAuth clients and the interface's `status`/`detail` with `rate_limited` (Errors rule 1).
 */
export function sendOAuthError(request: FastifyRequest, reply: FastifyReply, err: unknown, unexpected: 'server_error' | 'temporarily_unavailable' = 'server_error'): FastifyReply {
  if (isOAuthError(err)) {
    for (const [k, v] of Object.entries(err.headers)) reply.header(k, v);
    noteRefusal(request, err.error);
    return oauthJson(reply, err.status, err.body());
  }
  if (err instanceof AppError && err.code === 'rate_limited') {
    for (const [k, v] of Object.entries(err.headers)) reply.header(k, v);
    return oauthJson(reply, 429, { error: 'rate_limited', error_description: err.message, status: 'error', detail: errorDetail(err) });
  }
  const fe = err as { statusCode?: number; validation?: unknown; message?: string };
  if (err instanceof AppError ? err.status < 500 : typeof fe?.statusCode === 'number' && fe.statusCode >= 400 && fe.statusCode < 500) {
    const status = err instanceof AppError ? err.status : fe.statusCode!;
    const message = err instanceof AppError ? err.message : 'The request could not be read.';
    return oauthJson(reply, status === 413 || status === 415 ? status : 400, { error: 'invalid_request', error_description: message });
  }
  request.log.error({ err }, 'oauth request failed');
  if (unexpected === 'temporarily_unavailable') {
    reply.header('Retry-After', '5');
    return oauthJson(reply, 503, { error: 'temporarily_unavailable', error_description: 'Try again shortly; quote the X-Request-Id if it persists.' });
  }
  return oauthJson(reply, 500, { error: 'server_error', error_description: 'Internal error; quote the X-Request-Id when you report it.' });
}
