// Buckets of the OAuth rate limits (issue 13; ADR 0083). One address is many agents (a NAT, a hosted
// platform), so the `oauth` budget is kept per address AND per what the request is about: the
// client and grant of a token request, the refresh token or claim being used, the client name of a
// registration. A legitimate client then never meets another's budget, and a refresh (one per
// access-token lifetime per session) practically never sees 429. The `oauthAddress` budget, per
// address alone, only bounds floods. Secrets are hashed into the key, never kept.
import { createHash } from 'node:crypto';
import type { FastifyRequest } from 'fastify';

const digest = (s: string) => createHash('sha256').update(s).digest('base64url').slice(0, 16);
const one = (v: unknown): string | undefined => (typeof v === 'string' ? v : Array.isArray(v) && typeof v[0] === 'string' ? v[0] : undefined);
const field = (body: unknown, k: string): string | undefined => (body && typeof body === 'object' ? one((body as Record<string, unknown>)[k]) : undefined);

/** The bucket of a token request within its address: grant type plus client, and the code, refresh token, claim or assertion it presents. */
export function tokenRateSubject(form: unknown, basicClientId: string | null): string {
  const grant = field(form, 'grant_type') ?? '-';
  const client = field(form, 'client_id') ?? basicClientId ?? '-';
  const secret = field(form, 'code') ?? field(form, 'refresh_token') ?? field(form, 'claim_token') ?? field(form, 'assertion');
  return `grant:${digest(grant)}|client:${digest(client)}${secret ? `|t:${digest(secret)}` : ''}`;
}

/** The bucket of a registration, revocation, identity or claim request within its address. */
export function requestRateSubject(kind: 'register' | 'revoke' | 'identity' | 'claim'): (request: FastifyRequest) => string {
  return (request) => {
    const b = request.body;
    const who =
      kind === 'register'
        ? field(b, 'client_name')
        : kind === 'revoke'
          ? (field(b, 'client_id') ?? field(b, 'token'))
          : kind === 'identity'
            ? field(b, 'login_hint')?.toLowerCase()
            : field(b, 'claim_token');
    return `${kind}|${digest(who ?? '-')}`;
  };
}
