// Recognition jobs (interface: Recognition). Beyond `id` and `status` the records are Lectern's
// decision ("not shown"): see docs/recognition.md.
import { Type } from 'typebox';
import { Int64, Nullable } from './common.js';

export const RecognitionStatus = Type.Union(
  [Type.Literal('pending'), Type.Literal('processing'), Type.Literal('completed'), Type.Literal('failed')],
  { $id: 'RecognitionStatus', description: 'pending -> processing -> completed | failed.' },
);

export const RecognitionJob = Type.Object(
  {
    id: Type.String(),
    status: Type.Union([Type.Literal('pending'), Type.Literal('processing'), Type.Literal('completed'), Type.Literal('failed')]),
    format: Type.Optional(Nullable(Type.String())),
    sha256: Type.Optional(Type.String()),
    bytes: Type.Optional(Type.Integer({ minimum: 0 })),
    pages_total: Type.Optional(Nullable(Type.Integer({ minimum: 0 }))),
    pages_done: Type.Optional(Type.Integer({ minimum: 0 })),
    error: Type.Optional(Nullable(Type.Object({ code: Type.String(), message: Type.String() }))),
    created_at: Type.Optional(Int64()),
    updated_at: Type.Optional(Int64()),
  },
  { $id: 'RecognitionJob', additionalProperties: true },
);

export const RecognitionResult = Type.Object(
  {
    id: Type.String(),
    status: Type.Literal('completed'),
    markdown: Type.String(),
    quality: Type.Object({}, { additionalProperties: true, description: 'The quality report (docs/recognition.md).' }),
  },
  { $id: 'RecognitionResult', additionalProperties: true },
);

export const RECOGNITION_SCHEMAS = [RecognitionStatus, RecognitionJob, RecognitionResult];
