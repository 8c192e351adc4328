// What the auth capability is told by the composition root (it never reads configuration itself),
// and the paths of its endpoints and pages, relative to {auth_url}.

export interface AuthSettings {
  /** {auth_url}: the issuer, string-identical everywhere (auth requirement 26). */
  issuer: string;
  /** Resources tokens may be issued for: {mcp_url} (the default, decision 4) and the legacy address. */
  resources: { current: string; legacy: string };
  /** Server secret: subkeys for CSRF, refresh-token derivation and key sealing. */
  secret: string;
  accessTokenTtlSeconds: number;
  codeTtlSeconds: number;
  refreshTokenTtlSeconds: number;
  refreshGraceSeconds: number;
  claimTtlSeconds: number;
  claimIntervalSeconds: number;
  claimMaxCodeAttempts: number;
  identityAssertionTtlSeconds: number;
  sessionTtlSeconds: number;
  signingKeyRotationSeconds: number;
  allowSignUp: boolean;
  /** TEST ONLY: email of the account that is signed in and consents automatically, else null. */
  autoConsent: string | null;
}

/** Endpoint and page paths under {auth_url}. */
export const AUTH_PATHS = {
  metadata: '/.well-known/oauth-authorization-server',
  jwks: '/v2/oauth/jwks',
  authorize: '/v2/oauth/authorize',
  token: '/v2/oauth/token',
  register: '/v2/oauth/register',
  revoke: '/v2/oauth/revoke',
  identity: '/v2/agent/identity',
  claim: '/v2/agent/identity/claim',
  verify: '/v2/agent/verify',
  claimComplete: '/v2/agent/verify/complete',
  skill: '/v2/agent/skill.md',
  signIn: '/v2/auth/sign-in',
  signUp: '/v2/auth/sign-up',
  signOut: '/v2/auth/sign-out',
  verifyEmail: '/v2/auth/verify-email',
  resendVerification: '/v2/auth/verify-email/resend',
  forgotPassword: '/v2/auth/forgot-password',
  setPassword: '/v2/auth/set-password',
  account: '/v2/auth/account',
  revokeConnection: '/v2/auth/account/revoke',
  style: '/v2/auth/style.css',
} as const;

export type AuthPath = keyof typeof AUTH_PATHS;

/** The absolute URL of an auth endpoint or page. */
export const authUrl = (settings: Pick<AuthSettings, 'issuer'>, path: AuthPath): string => `${settings.issuer}${AUTH_PATHS[path]}`;

/** Grant type of the service_auth claim (decision 9). */
export const CLAIM_GRANT = 'urn:lectern:agent-auth:grant-type:claim';
export const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
/** The one scope (interface: scope `search`). */
export const SCOPE = 'search';

/**
 * What the scope lets a connected agent do, as the consent and claim pages and /openapi.json say it.
 * It is what the HTTP API and MCP accept from an access token: every operation of the API (there is
 * no narrower scope), on the consenting account's behalf.
 */
export const SCOPE_ALLOWS: readonly string[] = [
  "search and read documents (whole or in part) and run conversations, paid with this account's credits",
  'download originals (PDF, EPUB, DJVU) if this account may, and convert uploaded files (billed per document)',
  'rate search results, publish AI-labelled comments (which may wait for review) and vote on comments under this account; these are not billed',
];
/** What it does not let an agent do. */
export const SCOPE_DENIES = 'It cannot change the account, its password, email or API keys, and it cannot comment as you without the AI label.';
