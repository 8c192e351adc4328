// Helpers of the auth tests: an app that captures email, people with passwords, a cookie-keeping
// browser over `inject` (or a real socket), PKCE pairs, DCR clients, form posts.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import type { ConfigInput } from '../../src/config/index.js';
import type { MailMessage, Mailer } from '../../src/ports/mailer.js';
import type { AppOverrides } from '../../src/app.js';
import { testApp, type TestApp } from '../helpers/app.js';

export const CLAIM_GRANT = 'urn:lectern:agent-auth:grant-type:claim';
export const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
export const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

export interface AuthTestApp extends TestApp {
  mail: MailMessage[];
  /** {mcp_url} of this app. */
  mcp: string;
}

/** A test app with generous OAuth rate limits (unless given) and an in-memory mailbox. */
export async function authApp(config: Partial<ConfigInput> = {}, overrides: AppOverrides = {}): Promise<AuthTestApp> {
  const mail: MailMessage[] = [];
  const mailer: Mailer = { send: async (m) => void mail.push(m) };
  const app = await testApp(
    { ...config, rateLimits: { oauth: { capacity: 10_000, refillPerSecond: 1000 }, signin: { capacity: 10_000, refillPerSecond: 1000 }, ...(config.rateLimits ?? {}) } as ConfigInput['rateLimits'] },
    { mailer, ...overrides },
  );
  return Object.assign(app, { mail, mcp: app.config.mcpUrl });
}

let seq = 0;
export const uniqueEmail = (tag = 'person') => `${tag}${++seq}-${process.pid}-${randomBytes(3).toString('hex')}@example.org`;
export const PASSWORD = 'correct horse battery staple';

/** An account with a password (verified email unless told otherwise). */
export async function person(app: TestApp, opts: { email?: string; verified?: boolean; password?: string; credits?: number } = {}) {
  const email = opts.email ?? uniqueEmail();
  const r = await app.accounts.create({ email, emailVerified: opts.verified ?? true, credits: opts.credits ?? 1000 });
  await app.auth.people.setPassword(r.account.id, opts.password ?? PASSWORD);
  return { id: r.account.id, email, password: opts.password ?? PASSWORD, apiKey: r.apiKey };
}

export const formBody = (fields: Record<string, string | undefined>): string => {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(fields)) if (v !== undefined) q.append(k, v);
  return q.toString();
};

export function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** POST to the token endpoint. */
export async function token(app: TestApp, fields: Record<string, string | undefined>, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
  return app.http.inject({ method: 'POST', url: '/v2/oauth/token', headers: { ...FORM, ...headers }, payload: formBody(fields) });
}

export async function revoke(app: TestApp, fields: Record<string, string | undefined>, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
  return app.http.inject({ method: 'POST', url: '/v2/oauth/revoke', headers: { ...FORM, ...headers }, payload: formBody(fields) });
}

/** Registers a DCR client (public, code + refresh) and returns its registration response. */
export async function registerClient(app: TestApp, metadata: Record<string, unknown> = {}): Promise<Record<string, any>> {
  const res = await app.http.inject({
    method: 'POST',
    url: '/v2/oauth/register',
    payload: { client_name: 'Test agent (search for citations)', redirect_uris: ['http://127.0.0.1:4711/callback'], grant_types: ['authorization_code', 'refresh_token'], token_endpoint_auth_method: 'none', ...metadata },
  });
  assert.equal(res.statusCode, 201, res.body);
  return res.json();
}

/** A browser: keeps cookies, reads forms. Talks to the app through `inject`. */
export class Browser {
  readonly cookies = new Map<string, string>();
  constructor(private readonly app: TestApp) {}

  private cookieHeader(): string | undefined {
    return this.cookies.size ? [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ') : undefined;
  }

  private keep(res: LightMyRequestResponse): void {
    const set = res.headers['set-cookie'];
    for (const line of [set ?? []].flat()) {
      const [pair] = line.split(';');
      const i = pair!.indexOf('=');
      const name = pair!.slice(0, i).trim();
      const value = pair!.slice(i + 1).trim();
      if (/Max-Age=0|Expires=Thu, 01 Jan 1970/i.test(line) || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  async get(url: string, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
    const cookie = this.cookieHeader();
    const res = await this.app.http.inject({ method: 'GET', url, headers: { accept: 'text/html', ...(cookie ? { cookie } : {}), ...headers } });
    this.keep(res);
    return res;
  }

  async post(url: string, fields: Record<string, string | undefined>, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
    const cookie = this.cookieHeader();
    const res = await this.app.http.inject({ method: 'POST', url, headers: { accept: 'text/html', ...FORM, ...(cookie ? { cookie } : {}), ...headers }, payload: formBody(fields) });
    this.keep(res);
    return res;
  }

  /** Signs in through the form (GET for the CSRF token, then POST). */
  async signIn(email: string, password: string, returnTo?: string): Promise<LightMyRequestResponse> {
    const page = await this.get(`/v2/auth/sign-in${returnTo ? `?return_to=${encodeURIComponent(returnTo)}` : ''}`);
    assert.equal(page.statusCode, 200);
    return this.post('/v2/auth/sign-in', { csrf: csrfOf(page.body), email, password, return_to: returnTo });
  }
}

/** The CSRF token of the first form on a page. */
export function csrfOf(htmlText: string): string {
  const m = /name="csrf" value="([^"]+)"/.exec(htmlText);
  assert.ok(m, 'page has a CSRF field');
  return m[1]!;
}

/** Hidden fields of a page's forms. */
export function hiddenFields(htmlText: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of htmlText.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
    out[m[1]!] = m[2]!.replace(/&amp;/g, '&').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>');
  }
  return out;
}

/** The query parameters of a redirect Location, as a list of [name, value] (to count repeats). */
export function locationParams(location: string): URLSearchParams {
  return new URL(location).searchParams;
}

/** Authorization request URL for a client. */
export function authorizeUrl(params: Record<string, string | undefined>): string {
  return `/v2/oauth/authorize?${formBody(params)}`;
}

/**
 * Runs the whole code flow for a client as a signed-in browser: authorize, consent, code. Returns the
 * code and the PKCE verifier.
 */
export async function obtainCode(app: AuthTestApp, browser: Browser, client: Record<string, any>, extra: Record<string, string | undefined> = {}) {
  const p = pkce();
  const state = randomBytes(16).toString('base64url');
  const params = { response_type: 'code', client_id: client.client_id, redirect_uri: client.redirect_uris[0], scope: 'search', state, code_challenge: p.challenge, code_challenge_method: 'S256', resource: app.mcp, ...extra };
  const page = await browser.get(authorizeUrl(params));
  assert.equal(page.statusCode, 200, page.body);
  const res = await browser.post('/v2/oauth/authorize', { ...hiddenFields(page.body), decision: 'approve' });
  assert.equal(res.statusCode, 303, res.body);
  const loc = new URL(res.headers.location as string);
  return { code: loc.searchParams.get('code')!, verifier: p.verifier, state, location: loc, redirectUri: params.redirect_uri as string };
}

/** A client, a signed-in person, and tokens from the code flow. */
export async function codeFlowTokens(app: AuthTestApp, clientMeta: Record<string, unknown> = {}) {
  const client = await registerClient(app, clientMeta);
  const who = await person(app);
  const browser = new Browser(app);
  await browser.signIn(who.email, who.password);
  const { code, verifier, redirectUri } = await obtainCode(app, browser, client);
  const res = await token(app, { grant_type: 'authorization_code', code, redirect_uri: redirectUri, client_id: client.client_id, code_verifier: verifier, resource: app.mcp });
  assert.equal(res.statusCode, 200, res.body);
  return { client, who, browser, tokens: res.json() as Record<string, any> };
}

/** Calls an authenticated API route with a bearer token and returns the status. */
export async function apiStatus(app: TestApp, bearer: string): Promise<number> {
  return (await app.http.inject({ method: 'GET', url: '/v2/documents/nope', headers: { authorization: `Bearer ${bearer}` } })).statusCode;
}

/** POST /v2/agent/identity. */
export async function registerAgent(app: TestApp, body: unknown = {}): Promise<LightMyRequestResponse> {
  return app.http.inject({ method: 'POST', url: '/v2/agent/identity', payload: body as object });
}

/** The path + query of an absolute URL of this app. */
export const pathOf = (url: string) => {
  const u = new URL(url);
  return `${u.pathname}${u.search}`;
};

/** Opens the verification page as `browser` and approves with the shown code. */
export async function approveInPage(browser: Browser, verificationUri: string, code?: string): Promise<LightMyRequestResponse> {
  const page = await browser.get(pathOf(verificationUri));
  assert.equal(page.statusCode, 200, page.body);
  const shown = /aria-label="verification code">(\d{3}) (\d{3})</.exec(page.body);
  assert.ok(shown, 'the page shows the code');
  return browser.post('/v2/agent/verify/complete', { ...hiddenFields(page.body), decision: 'approve', user_code: code ?? `${shown[1]}${shown[2]}` });
}

/** A registered agent approved by a signed-in person, and its first token response. */
export async function approvedAgent(app: AuthTestApp) {
  const who = await person(app);
  const reg = (await registerAgent(app, { type: 'service_auth', login_hint: who.email })).json() as Record<string, any>;
  const browser = new Browser(app);
  await browser.signIn(who.email, who.password);
  const done = await approveInPage(browser, reg.claim.verification_uri);
  assert.equal(done.statusCode, 200, done.body);
  const res = await token(app, { grant_type: CLAIM_GRANT, claim_token: reg.claim_token });
  assert.equal(res.statusCode, 200, res.body);
  return { who, reg, browser, tokens: res.json() as Record<string, any> };
}
