// Recognition jobs: the service behind /v1/recognitions (submit, poll, result, cancel), its FIFO worker
// pool, billing at completion and restart resume. Builds on the converter (src/recognition/) and the
// RecognitionJobStore port; knows nothing of HTTP (http/routes/v1/recognitions.ts) or SQL (adapters/).
// See docs/recognition.md "Jobs" and ADRs 0033-0035.
export {
  RecognitionJobService,
  PERMANENT_FAILURES,
  MAX_CONVERSION_ATTEMPTS,
  RECOGNITION_OPERATION,
  type ConvertFn,
  type JobOutcome,
  type JobResult,
  type RecognitionJobDeps,
  type RecognitionJobSettings,
  type StagedUpload,
  type Submitted,
} from './recognition-job-service.js';
export { ConversionPool, type ConversionRun, type PoolStats } from './conversion-pool.js';
export { threadedConvert, serveConversion, closeWarmThreads, type ConversionRequest, type ThreadLimits, type WarmThreadData } from './threaded-convert.js';
