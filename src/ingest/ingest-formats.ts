// The input formats `lectern ingest --format` accepts. Apart from the ingest service so the CLI's help
// and argument check do not load the parsers (ADR 0302).
export const INGEST_FORMATS = ['auto', 'openalex', 'beir', 'stackexchange', 'lectern'] as const;
export type IngestFormat = (typeof INGEST_FORMATS)[number];
