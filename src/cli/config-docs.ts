// Generates docs/configuration.md from the configuration schema (kept in sync by a test).
import { configLeaves } from '../config/index.js';

export function configDocs(): string {
  const rows = configLeaves().map((l) => {
    const s = l.schema as { description?: string; default?: unknown; type?: string; anyOf?: { const?: unknown }[]; minimum?: number; maximum?: number };
    const type = s.anyOf ? s.anyOf.map((x) => JSON.stringify(x.const)).join(' \\| ') : (s.type ?? 'string');
    const range = s.minimum !== undefined || s.maximum !== undefined ? ` (${s.minimum ?? ''}..${s.maximum ?? ''})` : '';
    const def = s.default === undefined ? '' : `\`${JSON.stringify(s.default)}\``;
    return `| \`${l.path.join('.')}\` | \`${l.env}\` | ${type}${range} | ${def} | ${s.description ?? ''} |`;
  });
  return `# Configuration

Generated from \`src/config/schema.ts\` by \`npx lectern config docs\`; do not edit by hand.

Lectern reads defaults, then an optional JSON file named by \`LECTERN_CONFIG\` (same nesting as the
option names below, e.g. \`{"prices": {"search": 5}}\`), then environment variables. Every problem is
reported at once at start, and the configuration is frozen afterwards. \`npx lectern config check\`
prints the effective configuration.

| option | environment | type | default | meaning |
|---|---|---|---|---|
${rows.join('\n')}
`;
}
