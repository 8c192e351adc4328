// Entry point of a recognition worker thread (ADR 0035): wires the local process runner into the thread
// side of threadedConvert. Like main.ts, an entry point: it may import adapters, and nothing imports it
// (the job service loads it by URL).
import { parentPort, workerData } from 'node:worker_threads';
import { LocalProcessRunner } from './adapters/process/local-process-runner.js';
import { serveConversion, type ConversionRequest } from './recognition-jobs/index.js';

if (parentPort) void serveConversion(parentPort, workerData as ConversionRequest, new LocalProcessRunner());
