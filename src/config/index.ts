// Configuration: one schema (schema.ts), one loader (load.ts). The only module that reads process.env.
export { ConfigSchema, configLeaves, envName, type Config, type ConfigInput, type RateScope } from './schema.js';
export { ConfigError, isLoopbackUrl, loadConfig, loadConfigWithEnv, processEnvironment } from './load.js';
export { parseLlmModels, redactLlmModels, type LlmModelConfig } from './llm-models.js';
