// Agent registration for the service_auth claim flow (interface: Authentication, service_auth flow).
import { Type } from 'typebox';

export const AgentIdentityRequest = Type.Object(
  {
    type: Type.String({ description: 'Must be `service_auth`.' }),
    login_hint: Type.String({ maxLength: 320, description: 'The account email: a hint only, not proof of identity.' }),
  },
  { $id: 'AgentIdentityRequest' },
);

export const AgentClaim = Type.Object(
  {
    user_code: Type.String({ pattern: '^[0-9]{6}$' }),
    expires_in: Type.Integer({ minimum: 0, description: 'Seconds (900).' }),
    verification_uri: Type.String({ description: 'Address with a secret attempt token; show it to the user with user_code.' }),
    interval: Type.Integer({ minimum: 1, description: 'Seconds between polls (5).' }),
  },
  { $id: 'AgentClaim' },
);

export const AgentRegistration = Type.Object(
  {
    registration_id: Type.String(),
    registration_type: Type.Literal('service_auth'),
    claim_url: Type.String(),
    claim_token: Type.String({ description: 'Secret: store it, never show it.' }),
    claim_token_expires: Type.String({ description: 'RFC 3339 UTC timestamp.' }),
    post_claim_scopes: Type.Array(Type.String()),
    claim: Type.Object({
      user_code: Type.String({ pattern: '^[0-9]{6}$' }),
      expires_in: Type.Integer({ minimum: 0 }),
      verification_uri: Type.String(),
      interval: Type.Integer({ minimum: 1 }),
    }),
  },
  { $id: 'AgentRegistration' },
);

export const AGENT_IDENTITY_SCHEMAS = [AgentIdentityRequest, AgentClaim, AgentRegistration];
