// The environment a benchmark gives the server it starts over a prepared data directory: the embedded
// stores only (DATABASE_URL and REDIS_URL dropped), no demo corpus, warnings only, and a search rate limit
// no benchmark reaches; `extra` adds or overrides.
export function benchServerEnv(dataDir: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const { DATABASE_URL: _d, REDIS_URL: _r, ...baseEnv } = process.env;
  return {
    ...baseEnv,
    LECTERN_DATA_DIR: dataDir,
    LECTERN_LOAD_DEMO_CORPUS: 'false',
    LECTERN_LOG_LEVEL: 'warn',
    LECTERN_RATE_LIMITS_SEARCH_CAPACITY: '1000000',
    LECTERN_RATE_LIMITS_SEARCH_REFILL_PER_SECOND: '1000000',
    ...extra,
  };
}
