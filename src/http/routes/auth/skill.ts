// The agent guide advertised as agent_auth.skill: how an agent connects to Lectern.
import { CLAIM_GRANT, JWT_BEARER_GRANT } from '../../../auth/index.js';
import type { Web } from './web.js';

export function agentGuide(web: Web): string {
  const u = (p: Parameters<Web['url']>[0]) => web.url(p);
  const { current, legacy } = web.auth.settings.resources;
  return `# Connecting an agent to Lectern

Lectern searches scholarly literature and public discussion for a person, with their credits.
An agent gets an OAuth 2.0 access token (scope \`search\`, 3600 s) in one of two ways. Never ask the
person for a password, session cookie, API key, code, token, claim token or identity assertion.

## 1. You can receive a browser callback: authorization code with PKCE
- Metadata: ${u('metadata')} (RFC 8414). MCP resource: ${current} (legacy: ${legacy}).
- Register: POST ${u('register')} (JSON, RFC 7591) with \`client_name\` (your product and purpose),
  \`redirect_uris\` (https, or http on 127.0.0.1 / [::1] / localhost), \`grant_types\`
  ["authorization_code", "refresh_token"], \`token_endpoint_auth_method\` "none". Answer: 201.
- Authorize: ${u('authorize')} with response_type=code, client_id, redirect_uri, scope=search,
  state, code_challenge (S256), code_challenge_method=S256, resource=${current}. The person signs in
  and approves; check \`iss\` in the answer.
- Token: POST ${u('token')} (form) grant_type=authorization_code, code, redirect_uri, client_id,
  code_verifier, resource. Refresh tokens rotate on every use: always keep the newest.
- A 401 \`invalid_client\` means: register again.

## 2. You cannot receive a callback and know the person's email: service_auth
1. POST ${u('identity')} with JSON {"type": "service_auth", "login_hint": "<their email>"}.
2. Keep \`claim_token\` secret. Show the person \`claim.verification_uri\` and \`claim.user_code\`.
   They open the address, sign in, check that the code matches and approve.
3. Poll POST ${u('token')} (form) grant_type=${CLAIM_GRANT}&claim_token=...
   every \`claim.interval\` seconds: \`authorization_pending\` keep going; \`slow_down\` add 5 s to
   the interval from now on; \`access_denied\`, \`expired_token\` or \`invalid_grant\` stop.
4. On approval you get \`access_token\` and \`identity_assertion\` (secret). Renew before or after the
   access token expires: POST ${u('token')} grant_type=${JWT_BEARER_GRANT}&assertion=<identity_assertion>.
5. Lost the link, or the person denied by mistake? POST ${u('claim')} with JSON {"claim_token": ...}
   while the claim token is valid: a new user_code and verification_uri (at most 5 attempts).

## Revoking
POST ${u('revoke')} (form) token=<access token> ends that token only; token=<identity assertion> or
a refresh token ends the whole connection. The person can also disconnect agents at ${u('account')}.

## Using the token
\`Authorization: Bearer <access_token>\` on the HTTP API (${web.auth.settings.issuer}/openapi.json) and
at the MCP endpoint the token was issued for.
`;
}
