// Entry point of the segment builder thread (ADR 0111): indexes batches of documents the server's
// catch-up sends into segments (src/search/segment-builder.ts). Like main.ts, an entry point: nothing
// imports it (it is loaded by URL). Pure engine work: no store, no files.
import { parentPort } from 'node:worker_threads';
import { serveSegmentBuilds } from './search/segment-builder.js';

if (parentPort) serveSegmentBuilds(parentPort);
