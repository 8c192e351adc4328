// The auth capability: people's sign-in (people.ts), the OAuth 2.0 authorization server (clients.ts,
// authorization.ts, tokens.ts, token-endpoint.ts, metadata.ts), the service_auth claim flow
// (claims.ts), signing keys (signing-keys.ts) and the access-token CredentialVerifier
// (access-token-verifier.ts). Takes ports; knows nothing of HTTP (src/http/routes/auth/ renders it).
import type { Account, AccountStore } from '../ports/account-store.js';
import type { AuthStore } from '../ports/auth-store.js';
import type { Clock } from '../ports/clock.js';
import type { Mailer } from '../ports/mailer.js';
import { AccessTokenVerifier } from './access-token-verifier.js';
import { AuthorizationService } from './authorization.js';
import { ClaimService } from './claims.js';
import { ClientRegistry } from './clients.js';
import { Csrf } from './csrf.js';
import { authorizationServerMetadata } from './metadata.js';
import { PeopleService } from './people.js';
import { subkey } from './secrets.js';
import type { AuthSettings } from './settings.js';
import { KeyRing } from './signing-keys.js';
import { TokenEndpoint } from './token-endpoint.js';
import { TokenService } from './tokens.js';

export { AUTH_PATHS, authUrl, CLAIM_GRANT, JWT_BEARER_GRANT, SCOPE, SCOPE_ALLOWS, SCOPE_DENIES, type AuthSettings } from './settings.js';
export { OAuthError, isOAuthError } from './oauth-error.js';
export { FormProblem } from './people.js';

export interface AuthDeps {
  store: AuthStore;
  accounts: AccountStore;
  mailer: Mailer;
  clock: Clock;
  settings: AuthSettings;
  /** Called once after sign-up creates an account (the composition root grants starting credits); it handles (logs) its own errors. */
  onSignedUp?: (account: Account) => Promise<void>;
}

/** Everything the HTTP layer (and the CredentialChain) needs from the auth capability. */
export interface Auth {
  readonly settings: AuthSettings;
  readonly accounts: AccountStore;
  readonly people: PeopleService;
  readonly clients: ClientRegistry;
  readonly authorization: AuthorizationService;
  readonly tokens: TokenService;
  readonly tokenEndpoint: TokenEndpoint;
  readonly claims: ClaimService;
  readonly keys: KeyRing;
  readonly csrf: Csrf;
  /** The CredentialVerifier for OAuth access tokens. */
  readonly accessTokens: AccessTokenVerifier;
  readonly store: AuthStore;
  readonly clock: Clock;
  metadata(): Record<string, unknown>;
}

export function createAuth(deps: AuthDeps): Auth {
  const { store, clock, settings } = deps;
  const keys = new KeyRing(store.keys, clock, subkey(settings.secret, 'signing-key-seal'), {
    rotationSeconds: settings.signingKeyRotationSeconds,
    // A retired key verifies until the longest-lived thing it signed (an identity assertion) expires.
    keepSeconds: Math.max(settings.identityAssertionTtlSeconds, settings.accessTokenTtlSeconds) + 3600,
  });
  const tokens = new TokenService(store.oauth, store.claims, keys, clock, settings);
  const clients = new ClientRegistry(store.oauth, clock);
  const authorization = new AuthorizationService(store.oauth, clients, tokens, clock, settings);
  const claims = new ClaimService(store.claims, tokens, clock, settings);
  const people = new PeopleService(store.people, store.oauth, deps.accounts, deps.mailer, clock, settings, deps.onSignedUp);
  return {
    settings,
    accounts: deps.accounts,
    people,
    clients,
    authorization,
    tokens,
    tokenEndpoint: new TokenEndpoint(clients, authorization, tokens, claims),
    claims,
    keys,
    csrf: new Csrf(settings.secret),
    accessTokens: new AccessTokenVerifier(tokens),
    store,
    clock,
    metadata: () => authorizationServerMetadata(settings),
  };
}
