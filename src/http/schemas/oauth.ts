// Wire shapes of the OAuth endpoints (RFC 8414, RFC 7591, RFC 6749 §5, RFC 7009), for /openapi.json.
// Requests are checked by the auth capability itself, because their errors must come back in the RFC
// 6749 shape and unknown registration metadata must be ignored, not refused.
import { Type } from 'typebox';

export const OAuthErrorResponse = Type.Object(
  {
    error: Type.String({ description: 'RFC 6749 error code, e.g. invalid_request, invalid_client, invalid_grant, authorization_pending, slow_down.' }),
    error_description: Type.Optional(Type.String()),
  },
  { $id: 'OAuthErrorResponse', additionalProperties: true, description: 'Error of an OAuth endpoint (auth requirements, decision 2). A 429 also carries the ApiError fields status and detail.' },
);

export const TokenResponse = Type.Object(
  {
    access_token: Type.String({ description: 'Secret bearer token (a JWT), valid for expires_in seconds.' }),
    token_type: Type.Literal('Bearer'),
    expires_in: Type.Integer({ description: 'Seconds (3600).' }),
    scope: Type.String({ description: '`search`.' }),
    refresh_token: Type.Optional(Type.String({ description: 'For clients registered with the refresh_token grant; rotates on every use.' })),
    identity_assertion: Type.Optional(Type.String({ description: 'service_auth only: secret signed assertion that renews access tokens (jwt-bearer grant).' })),
  },
  { $id: 'TokenResponse', additionalProperties: true },
);

export const ClientInformation = Type.Object(
  {
    client_id: Type.String(),
    client_id_issued_at: Type.Integer(),
    redirect_uris: Type.Array(Type.String()),
    token_endpoint_auth_method: Type.String(),
    grant_types: Type.Array(Type.String()),
    response_types: Type.Array(Type.String()),
    scope: Type.String(),
    client_name: Type.Optional(Type.String()),
    client_secret: Type.Optional(Type.String({ description: 'Confidential clients only; shown once.' })),
    client_secret_expires_at: Type.Optional(Type.Integer({ description: '0: never.' })),
  },
  { $id: 'ClientInformation', additionalProperties: true, description: 'RFC 7591 client information response.' },
);

export const AuthorizationServerMetadata = Type.Object(
  {
    issuer: Type.String(),
    authorization_endpoint: Type.String(),
    token_endpoint: Type.String(),
    registration_endpoint: Type.String(),
    revocation_endpoint: Type.String(),
    jwks_uri: Type.String(),
    response_types_supported: Type.Array(Type.String()),
    response_modes_supported: Type.Array(Type.String()),
    grant_types_supported: Type.Array(Type.String()),
    token_endpoint_auth_methods_supported: Type.Array(Type.String()),
    revocation_endpoint_auth_methods_supported: Type.Array(Type.String()),
    code_challenge_methods_supported: Type.Array(Type.String(), { description: 'Always `S256` (PKCE is mandatory).' }),
    scopes_supported: Type.Array(Type.String()),
    authorization_response_iss_parameter_supported: Type.Boolean(),
    service_documentation: Type.String(),
    agent_auth: Type.Object(
      {
        skill: Type.String(),
        identity_endpoint: Type.String(),
        claim_endpoint: Type.String(),
        claim_complete_uri: Type.String(),
        revocation_uri: Type.String(),
        identity_types_supported: Type.Array(Type.String()),
        credential_types_supported: Type.Array(Type.String()),
      },
      { additionalProperties: true, description: 'The service_auth flow (interface: Discovery).' },
    ),
  },
  { $id: 'AuthorizationServerMetadata', additionalProperties: true, description: 'RFC 8414 metadata with the agent_auth object.' },
);

export const OAUTH_SCHEMAS = [OAuthErrorResponse, TokenResponse, ClientInformation, AuthorizationServerMetadata];
