// Recognition jobs (interface: Recognition). Beyond `id` and `status` (`pending` right after submission,
// `completed` when the result is fetchable) the records are Lectern's decision ("not shown"): see
// docs/recognition.md "Jobs".
import { Type } from 'typebox';
import { Int64, Nullable, ref } from './common.js';

export const RecognitionStatus = Type.Union(
  [Type.Literal('pending'), Type.Literal('processing'), Type.Literal('completed'), Type.Literal('failed'), Type.Literal('cancelled')],
  { $id: 'RecognitionStatus', description: 'pending -> processing -> completed | failed; pending or processing -> cancelled (DELETE).' },
);

export const RecognitionJobError = Type.Object(
  {
    code: Type.String({ description: 'Why the job failed: unsupported_format, too_many_pages, encrypted_document, damaged_document, empty_document, document_too_large, conversion_timeout, insufficient_credits, cancelled, internal.' }),
    message: Type.String(),
  },
  { $id: 'RecognitionJobError', additionalProperties: false },
);

export const RecognitionJob = Type.Object(
  {
    id: Type.String({ description: 'Job id (`rj_` + 32 hex characters).' }),
    status: ref(RecognitionStatus),
    format: Type.String({ description: 'pdf, epub or djvu, detected from the bytes.' }),
    sha256: Type.String({ description: 'SHA-256 of the uploaded file, hex: an identical upload returns this job.' }),
    bytes: Type.Integer({ minimum: 0, description: 'Size of the upload.' }),
    pages_total: Nullable(Type.Integer({ minimum: 0 }), { description: 'Pages (EPUB: spine items) once known.' }),
    pages_done: Type.Integer({ minimum: 0, description: 'Pages converted so far.' }),
    error: Nullable(ref(RecognitionJobError), { description: 'Set when failed or cancelled.' }),
    charged_credits: Nullable(Type.Integer({ minimum: 0 }), { description: 'Credits debited (set when completed; an identical resubmission is free).' }),
    created_at: Int64({ description: 'Unix seconds.' }),
    updated_at: Int64({ description: 'Unix seconds.' }),
  },
  { $id: 'RecognitionJob', additionalProperties: false },
);

export const RecognitionResult = Type.Object(
  {
    id: Type.String(),
    status: Type.Literal('completed'),
    markdown: Type.String({ description: 'The document as Markdown (page markers `<!-- page N -->` for PDF and DJVU).' }),
    quality: Type.Object({}, { additionalProperties: true, description: 'The quality report (docs/recognition.md, "Quality report").' }),
  },
  { $id: 'RecognitionResult', additionalProperties: false },
);

export const RecognitionJobList = Type.Object(
  {
    jobs: Type.Array(ref(RecognitionJob), { description: 'The caller\'s jobs, newest first.' }),
    next_before: Nullable(Type.String(), { description: 'Pass as `before` for the next page; null on the last page.' }),
  },
  { $id: 'RecognitionJobList', additionalProperties: false },
);

export const RecognitionFormats = Type.Object(
  {
    formats: Type.Array(
      Type.Object(
        {
          format: Type.String({ description: 'pdf, epub or djvu.' }),
          available: Type.Boolean({ description: 'Documents of this format can be converted here.' }),
          ocr: Type.Boolean({ description: 'Pages without a text layer can be recognised (tesseract installed).' }),
          missing_tools: Type.Array(Type.String(), { description: 'Programs that are not installed (tesseract included when OCR is unavailable).' }),
        },
        { additionalProperties: false },
      ),
    ),
    max_bytes: Type.Integer({ description: 'Largest upload, bytes (413 above).' }),
    max_pages: Type.Integer({ description: 'Most pages or EPUB spine items (the job fails with too_many_pages above).' }),
    price_per_page: Type.Integer({ description: 'Credits per page whose text was read (blank and failed pages are free), debited once when the job completes.' }),
  },
  { $id: 'RecognitionFormats', additionalProperties: false },
);

export const RECOGNITION_SCHEMAS = [RecognitionStatus, RecognitionJobError, RecognitionJob, RecognitionJobList, RecognitionResult, RecognitionFormats];
