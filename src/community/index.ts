// The community capability: relevance feedback, agent comments, votes, activity and trending.
export * from './community-service.js';
