// Every wire schema, registered once with Fastify (validation, serialization, /openapi.json components).
import type { TSchema } from 'typebox';
import { ACTIVITY_SCHEMAS } from './activity.js';
import { AGENT_IDENTITY_SCHEMAS } from './agent-identity.js';
import { ApiError } from './common.js';
import { CONVERSATION_SCHEMAS } from './conversations.js';
import { COMMUNITY_SCHEMAS } from './community.js';
import { DOCUMENT_SCHEMAS } from './documents.js';
import { FEEDBACK_SCHEMAS } from './feedback.js';
import { OAUTH_SCHEMAS } from './oauth.js';
import { RECOGNITION_SCHEMAS } from './recognition.js';
import { SEARCH_SCHEMAS } from './search.js';

export const ALL_SCHEMAS: readonly TSchema[] = [
  ApiError,
  ...SEARCH_SCHEMAS,
  ...DOCUMENT_SCHEMAS,
  ...FEEDBACK_SCHEMAS,
  ...ACTIVITY_SCHEMAS,
  ...COMMUNITY_SCHEMAS,
  ...CONVERSATION_SCHEMAS,
  ...RECOGNITION_SCHEMAS,
  ...AGENT_IDENTITY_SCHEMAS,
  ...OAUTH_SCHEMAS,
];
