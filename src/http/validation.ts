// Request validation. Fastify's default validator drops unknown properties and coerces types; the
// interface wants unknown properties rejected (where it says so) and wrong types refused, so bodies
// are validated strictly (no coercion, no removal), while query strings and path parameters, which
// are text on the wire, are coerced to their declared types. Defaults are applied in both.
import { Ajv, type AnySchema } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifyInstance } from 'fastify';
import type { TSchema } from 'typebox';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

function makeAjv(coerce: boolean, schemas: readonly TSchema[]): Ajv {
  const ajv = addFormats(
    new Ajv({ allErrors: true, useDefaults: true, coerceTypes: coerce, removeAdditional: false, strict: false, allowUnionTypes: true }),
  );
  for (const s of schemas) ajv.addSchema(s as AnySchema);
  return ajv;
}

/** Registers the shared schemas and the strict/coercing validators on `app`. */
export function installValidation(app: FastifyInstance, schemas: readonly TSchema[]): void {
  for (const s of schemas) app.addSchema(s as { $id: string });
  const body = makeAjv(false, schemas);
  const text = makeAjv(true, schemas);
  app.setValidatorCompiler(({ schema, httpPart }) => (httpPart === 'body' ? body : text).compile(schema as AnySchema));
}
