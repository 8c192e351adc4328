// The service_auth claim flow (interface: Authentication, service_auth flow; States, service_auth
// claim) with RFC 8628 §3.5 polling semantics, and renewal by the identity assertion (RFC 7523).
//
// A registration has a claim token (`lct_`, the agent's secret) and a current claim attempt. The
// attempt's verification_uri carries its own secret attempt token (`lat_`), never the claim token or the
// user code (requirement 76). The six-digit user code is derived from the attempt token with a server
// key, so the verification page can show it without the code being stored; only its digest is stored.
// Nothing is emailed. The person signed in with the matching verified email sees the code, types the
// code their agent shows to confirm, and approves or denies; wrong codes are limited per attempt
// (requirement 83), and reaching the limit denies the attempt.
//
// Polling order (requirement 81): unknown or redeemed claim -> invalid_grant; denied -> access_denied;
// expired -> expired_token (all terminal, before any rate limit); then slow_down when faster than the
// attempt's interval (which grows by 5 s with each slow_down, RFC 8628: a client that added 5 s is not
// slowed again); then the client-address rate limit; then authorization_pending or the tokens.
import { createHmac } from 'node:crypto';
import { AppError } from '../domain/errors.js';
import type { Account } from '../ports/account-store.js';
import type { AgentRegistrationRecord, ClaimAttemptRecord, ClaimStore, GrantRecord } from '../ports/auth-store.js';
import type { Clock } from '../ports/clock.js';
import { nowSeconds } from '../ports/clock.js';
import { OAuthError } from './oauth-error.js';
import { FormProblem } from './people.js';
import { digest, issueSecret, matchesDigest, randomId, sameString, secretId, subkey } from './secrets.js';
import { authUrl, SCOPE, type AuthSettings } from './settings.js';
import type { TokenResponse, TokenService } from './tokens.js';

const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
/** Most claim attempts one registration may start (the first included). */
export const MAX_ATTEMPTS = 5;
/** Polls this much early are still on time (network jitter), ms. */
const POLL_SLACK_MS = 500;
/** An approved claim can still be redeemed this long after the attempt expired, s. */
const REDEEM_GRACE_SECONDS = 60;

/** The registration record (interface, service_auth flow 2). */
export interface RegistrationResponse {
  registration_id: string;
  registration_type: 'service_auth';
  claim_url: string;
  claim_token: string;
  claim_token_expires: string;
  post_claim_scopes: string[];
  claim: { user_code: string; expires_in: number; verification_uri: string; interval: number };
}

/** What the verification page shows. */
export type VerificationView =
  | { kind: 'invalid' }
  | { kind: 'expired' }
  | { kind: 'decided'; status: 'approved' | 'denied' | 'redeemed' }
  | { kind: 'other_account'; maskedHint: string }
  | { kind: 'unverified' }
  | { kind: 'ready'; userCode: string; attemptsLeft: number; expiresAt: number; registrationId: string };

const rfc3339 = (seconds: number) => new Date(seconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** `ada@example.org` -> `a**@e******.org` (the page tells who the request is for without spelling it). */
export function maskEmail(email: string): string {
  const [local = '', domain = ''] = email.split('@');
  const dot = domain.lastIndexOf('.');
  const name = dot > 0 ? domain.slice(0, dot) : domain;
  const tld = dot > 0 ? domain.slice(dot) : '';
  const mask = (s: string) => (s.length <= 1 ? s : s[0] + '*'.repeat(Math.min(s.length - 1, 8)));
  return `${mask(local)}@${mask(name)}${tld}`;
}

export class ClaimService {
  readonly #codeKey: Buffer;

  constructor(
    private readonly store: ClaimStore,
    private readonly tokens: TokenService,
    private readonly clock: Clock,
    private readonly settings: AuthSettings,
  ) {
    this.#codeKey = subkey(settings.secret, 'user-code');
  }

  /** The user code shown with an attempt token (derived, never stored in the clear). */
  private userCodeOf(attemptToken: string): string {
    const n = createHmac('sha256', this.#codeKey).update(attemptToken).digest().readUInt32BE(0) % 1_000_000;
    return String(n).padStart(6, '0');
  }

  private newAttempt(registrationId: string): { record: ClaimAttemptRecord; token: string; userCode: string } {
    const s = issueSecret('lat');
    const now = nowSeconds(this.clock);
    const userCode = this.userCodeOf(s.token);
    return {
      token: s.token,
      userCode,
      record: {
        id: s.id,
        registrationId,
        hash: s.hash,
        userCodeHash: digest(userCode),
        status: 'pending',
        createdAt: now,
        expiresAt: now + this.settings.claimTtlSeconds,
        intervalSeconds: this.settings.claimIntervalSeconds,
        lastPollMs: null,
        wrongCodes: 0,
        decidedBy: null,
        decidedAt: null,
        current: true,
      },
    };
  }

  private response(registrationId: string, claimToken: string, attempt: { record: ClaimAttemptRecord; token: string; userCode: string }): RegistrationResponse {
    return {
      registration_id: registrationId,
      registration_type: 'service_auth',
      claim_url: authUrl(this.settings, 'claim'),
      claim_token: claimToken,
      claim_token_expires: rfc3339(attempt.record.expiresAt),
      post_claim_scopes: [SCOPE],
      claim: {
        user_code: attempt.userCode,
        expires_in: attempt.record.expiresAt - nowSeconds(this.clock),
        verification_uri: `${authUrl(this.settings, 'verify')}?attempt=${encodeURIComponent(attempt.token)}`,
        interval: attempt.record.intervalSeconds,
      },
    };
  }

  /** POST /v2/agent/identity: `{type: "service_auth", login_hint}`; anything else is refused (requirement 75). */
  async register(body: unknown): Promise<RegistrationResponse> {
    if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new AppError('bad_request', 'Send a JSON object {"type": "service_auth", "login_hint": "<account email>"}.');
    const b = body as Record<string, unknown>;
    const extra = Object.keys(b).filter((k) => k !== 'type' && k !== 'login_hint');
    if (b.type !== 'service_auth') {
      throw new AppError('bad_request', `Unsupported identity type ${JSON.stringify(b.type ?? null)}: only "service_auth" is supported (anonymous registration and external identity assertions are rejected).`);
    }
    if (extra.length > 0) throw new AppError('bad_request', `Unknown properties: ${extra.join(', ')}. External identity assertions are rejected.`);
    if (typeof b.login_hint !== 'string' || b.login_hint.trim() === '') throw new AppError('bad_request', 'login_hint (the account email) is required: anonymous registration is rejected.');
    const loginHint = b.login_hint.trim().toLowerCase();
    if (!EMAIL_RE.test(loginHint) || loginHint.length > 320) throw new AppError('bad_request', 'login_hint must be an email address.');
    const claim = issueSecret('lct');
    const registrationId = randomId('reg');
    const attempt = this.newAttempt(registrationId);
    const registration: AgentRegistrationRecord = {
      id: registrationId,
      loginHint,
      claimTokenId: claim.id,
      claimTokenHash: claim.hash,
      createdAt: nowSeconds(this.clock),
      attempts: 1,
      grantId: null,
    };
    await this.store.createRegistration(registration, attempt.record);
    return this.response(registrationId, claim.token, attempt);
  }

  private async registrationOf(claimToken: string): Promise<AgentRegistrationRecord | null> {
    const id = secretId('lct', claimToken);
    const reg = id ? await this.store.getRegistrationByClaimToken(id) : null;
    return reg && matchesDigest(claimToken, reg.claimTokenHash) ? reg : null;
  }

  /**
   * POST /v2/agent/identity/claim (Lectern's definition, requirement 84): a new claim attempt for a
   * registration, authenticated by its unexpired claim token. The old attempt is superseded (its
   * verification_uri stops working); the answer is the registration record again, with the same
   * registration_id and claim_token and a new user_code, verification_uri and expiry. For a person who
   * denied by mistake, an attempt locked after wrong codes, or a lost link. At most 5 attempts; an
   * approved or redeemed registration answers 409.
   */
  async restart(body: unknown): Promise<RegistrationResponse> {
    const b = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
    if (typeof b.claim_token !== 'string') throw new AppError('bad_request', 'Send {"claim_token": "<the registration\'s claim token>"}.');
    const reg = await this.registrationOf(b.claim_token);
    const current = reg ? await this.store.currentAttempt(reg.id) : null;
    if (!reg || !current || current.expiresAt <= nowSeconds(this.clock)) throw new AppError('unauthorized');
    if (reg.grantId !== null || current.status === 'approved' || current.status === 'redeemed') throw new AppError('conflict', 'This registration is already approved; poll the token endpoint.');
    if (reg.attempts >= MAX_ATTEMPTS) throw new AppError('conflict', `A registration may start at most ${MAX_ATTEMPTS} claim attempts; register again.`);
    const attempt = this.newAttempt(reg.id);
    await this.store.replaceAttempt(reg.id, attempt.record);
    return this.response(reg.id, b.claim_token, attempt);
  }

  /** The token endpoint's claim grant (requirements 77-82). `limit` applies the client-address rate limit. */
  async poll(claimToken: string | undefined, resource: string | undefined, limit: () => Promise<void>): Promise<TokenResponse> {
    if (!claimToken) throw new OAuthError('invalid_request', 'claim_token is missing.');
    const reg = await this.registrationOf(claimToken);
    const attempt = reg ? await this.store.currentAttempt(reg.id) : null;
    if (!reg || !attempt) throw new OAuthError('invalid_grant', 'Unknown claim token.');
    const now = nowSeconds(this.clock);
    const nowMs = this.clock.nowMs();
    if (attempt.status === 'redeemed' || reg.grantId !== null) throw new OAuthError('invalid_grant', 'This claim was already redeemed; renew with the identity assertion.');
    if (attempt.status === 'denied') throw new OAuthError('access_denied', 'The person denied the request. Stop polling.');
    const expired = attempt.status === 'approved' ? now >= attempt.expiresAt + REDEEM_GRACE_SECONDS : now >= attempt.expiresAt;
    if (expired) throw new OAuthError('expired_token', 'The claim expired before it was approved. Stop polling; register again.');
    if (attempt.lastPollMs !== null && nowMs - attempt.lastPollMs < attempt.intervalSeconds * 1000 - POLL_SLACK_MS) {
      const interval = Math.min(attempt.intervalSeconds + 5, 60);
      await this.store.recordPoll(attempt.id, nowMs, interval);
      throw new OAuthError('slow_down', `Polling too fast: wait at least ${interval} seconds between polls.`);
    }
    await this.store.recordPoll(attempt.id, nowMs, attempt.intervalSeconds);
    await limit();
    if (attempt.status === 'pending') throw new OAuthError('authorization_pending', 'The person has not decided yet; keep polling at the interval.');
    const audience = this.tokens.resolveResource(resource);
    const grantId = randomId('gr');
    if (!(await this.store.redeem(attempt.id, grantId, now))) throw new OAuthError('invalid_grant', 'This claim was already redeemed.');
    const jti = randomId('ia');
    const grant: GrantRecord = await this.tokens.createGrant({
      id: grantId,
      kind: 'service_auth',
      accountId: attempt.decidedBy!,
      clientId: null,
      registrationId: reg.id,
      scope: SCOPE,
      resource: audience,
      expiresAt: now + this.settings.identityAssertionTtlSeconds,
      assertionJti: jti,
    });
    const assertion = await this.tokens.signAssertion(grant, jti);
    return this.tokens.respond(grant, { identityAssertion: assertion });
  }

  /** The jwt-bearer grant with an identity assertion (requirements 85-87). */
  async renew(assertion: string | undefined, scope: string | undefined, resource: string | undefined): Promise<TokenResponse> {
    if (!assertion) throw new OAuthError('invalid_request', 'assertion is missing.');
    const payload = await this.tokens.verifyAssertion(assertion);
    const grant = await this.tokens.grantOfAssertion(payload.sub, payload.jti);
    const now = nowSeconds(this.clock);
    if (!grant || grant.revokedAt !== null) throw new OAuthError('invalid_grant', 'The agent connection was revoked; register again.');
    if (grant.expiresAt !== null && grant.expiresAt <= now) throw new OAuthError('invalid_grant', 'The agent connection has expired; register again.');
    if (scope !== undefined && scope.split(' ').filter(Boolean).some((s) => s !== SCOPE)) throw new OAuthError('invalid_scope', `The only scope is ${SCOPE}.`);
    return this.tokens.respond(grant, { audience: resource === undefined ? grant.resource : this.tokens.resolveResource(resource) });
  }

  private async attemptOf(attemptToken: string | undefined): Promise<{ attempt: ClaimAttemptRecord; reg: AgentRegistrationRecord } | null> {
    const id = attemptToken ? secretId('lat', attemptToken) : null;
    const attempt = id ? await this.store.getAttempt(id) : null;
    if (!attempt || !matchesDigest(attemptToken!, attempt.hash) || !attempt.current) return null;
    const reg = await this.store.getRegistration(attempt.registrationId);
    return reg ? { attempt, reg } : null;
  }

  /** What the verification page shows to `person` (null: not signed in, the page asks for sign-in first). */
  async view(attemptToken: string | undefined, person: Account): Promise<VerificationView> {
    const found = await this.attemptOf(attemptToken);
    if (!found) return { kind: 'invalid' };
    const { attempt, reg } = found;
    if (attempt.status !== 'pending') return { kind: 'decided', status: attempt.status };
    if (attempt.expiresAt <= nowSeconds(this.clock)) return { kind: 'expired' };
    if (person.email !== reg.loginHint) return { kind: 'other_account', maskedHint: maskEmail(reg.loginHint) };
    if (!person.emailVerified) return { kind: 'unverified' };
    return {
      kind: 'ready',
      userCode: this.userCodeOf(attemptToken!),
      attemptsLeft: this.settings.claimMaxCodeAttempts - attempt.wrongCodes,
      expiresAt: attempt.expiresAt,
      registrationId: reg.id,
    };
  }

  /**
   * The person's decision at claim_complete_uri. Approval needs the typed code to equal the user code;
   * a wrong code counts, and the last allowed wrong code denies the attempt.
   */
  async decide(attemptToken: string | undefined, person: Account, decision: 'approve' | 'deny', typedCode: string | undefined): Promise<'approved' | 'denied'> {
    const view = await this.view(attemptToken, person);
    if (view.kind !== 'ready') throw new FormProblem('This request cannot be decided any more (it was decided, expired, or is for another account).');
    const { attempt } = (await this.attemptOf(attemptToken))!;
    if (decision === 'deny') {
      await this.store.decide(attempt.id, 'denied', person.id, nowSeconds(this.clock));
      return 'denied';
    }
    const typed = (typedCode ?? '').replace(/\D/g, '');
    if (!sameString(typed, view.userCode)) {
      const wrong = await this.store.addWrongCode(attempt.id);
      if (wrong >= this.settings.claimMaxCodeAttempts) {
        await this.store.decide(attempt.id, 'denied', person.id, nowSeconds(this.clock));
        throw new FormProblem('Too many wrong codes: this request was denied. The agent can start a new attempt.');
      }
      const left = this.settings.claimMaxCodeAttempts - wrong;
      throw new FormProblem(`That code does not match. ${left} ${left === 1 ? 'try' : 'tries'} left.`);
    }
    if (!(await this.store.decide(attempt.id, 'approved', person.id, nowSeconds(this.clock)))) throw new FormProblem('This request was already decided.');
    return 'approved';
  }

  /** Headless approval (LECTERN_AUTO_CONSENT, tests only): approves when the account matches. */
  async autoApprove(attemptToken: string | undefined, person: Account): Promise<VerificationView> {
    const view = await this.view(attemptToken, person);
    if (view.kind !== 'ready') return view;
    const { attempt } = (await this.attemptOf(attemptToken))!;
    await this.store.decide(attempt.id, 'approved', person.id, nowSeconds(this.clock));
    return { kind: 'decided', status: 'approved' };
  }
}
