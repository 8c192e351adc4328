// Recognition: PDF, EPUB and DJVU documents to structured Markdown with a per-document quality report.
// Owns format detection, page extraction (text layer, OCR, DJVU hidden text, EPUB markup), layout
// analysis, Markdown rendering and the report. Does not spawn processes or touch files itself: external
// tools run through the ProcessRunner port (src/ports/process-runner.ts). Does not know HTTP, jobs or
// billing (phase 2 builds those on top of convertDocument). See docs/recognition.md.
export { convertDocument, type ConvertOptions, type ConversionResult } from './convert-document.js';
export { detectFormat, isZip, locateZipDirectory, zipDirectoryEntries, epubByDirectory, ZIP_TAIL_BYTES, type DocumentFormat } from './format-detection.js';
export { availableFormats, REQUIRED_TOOLS, type FormatAvailability } from './available-formats.js';
export { RecognitionError, isRecognitionError, RECOGNITION_ERROR_CODES, type RecognitionErrorCode } from './errors.js';
export { DEFAULT_LIMITS, resolveLimits, type RecognitionLimits } from './limits.js';
export { PIPELINE_VERSION, type PageCheckpoint } from './checkpoint.js';
export type { PageExtraction, MarkdownUnit, LayoutLine, PageKind, Box } from './layout-model.js';
export type { QualityReport, QualityWarning, QualityGrade, WarningCode, TextStatistics, DocumentMetadata } from './report/quality-report.js';
export type { DocBlock, HeadingSource } from './structure/document-blocks.js';
export { recognizeForIngest, type RecognizedDocument } from './recognize-for-ingest.js';
