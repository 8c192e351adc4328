// Post-processing of the generated OpenAPI 3.1 document so that generators and JSON Schema 2020-12
// validators accept it (issue 13): TypeBox's schemas drive validation with Ajv (draft-07 dialect) and
// serialization, so two spellings are only fixed in the published document:
// - a property with a `default` is not `required` (the server fills defaults; the interface's own
//   example sends only `query` and `limit`);
// - tuples are written with `prefixItems` (2020-12), not the draft-07 `items: [...]` array form;
// - a request body is written in place (not as a `$ref` to its component) when the component has
//   defaulted fields: generators such as openapi-typescript treat a defaulted property of a component
//   as always present (true of responses), and only know it is optional to send inside a request body;
// - a `document` slot of hits and trending entries is a `$ref` to the Document component (ADR 0220; the
//   serializer writes those documents as built, without a schema pass per hit).

type Json = Record<string, unknown>;

/** Marks a `document` slot (schemas/common.ts documentSlot; the same string, kept here to stay a leaf module). */
const DOCUMENT_SLOT = 'x-lectern-document';

function fix(node: unknown): void {
  if (Array.isArray(node)) {
    for (const n of node) fix(n);
    return;
  }
  if (node === null || typeof node !== 'object') return;
  const o = node as Json;
  // a document slot is published as the Document component (ADR 0220)
  const slot = o[DOCUMENT_SLOT] as 'nullable' | 'object' | undefined;
  if (slot !== undefined) {
    delete o[DOCUMENT_SLOT];
    const document = { $ref: '#/components/schemas/Document' };
    if (slot === 'nullable') o.anyOf = [document, { type: 'null' }];
    else Object.assign(o, document);
    return;
  }
  if (Array.isArray(o.items)) {
    o.prefixItems = o.items;
    if (o.additionalItems === false || o.additionalItems === undefined) o.items = false;
    else o.items = o.additionalItems;
    delete o.additionalItems;
  }
  if (Array.isArray(o.required) && o.properties && typeof o.properties === 'object') {
    const props = o.properties as Record<string, Json>;
    const required = (o.required as string[]).filter((k) => !(props[k] && typeof props[k] === 'object' && 'default' in props[k]!));
    if (required.length > 0) o.required = required;
    else delete o.required;
  }
  for (const v of Object.values(o)) fix(v);
}

const hasDefaults = (schema: Json | undefined): boolean =>
  !!schema?.properties && Object.values(schema.properties as Record<string, Json>).some((p) => p && typeof p === 'object' && 'default' in p);

function inlineRequestBodies(doc: Json): void {
  const schemas = ((doc.components as Json | undefined)?.schemas ?? {}) as Record<string, Json>;
  for (const item of Object.values((doc.paths ?? {}) as Record<string, Json>)) {
    for (const op of Object.values(item)) {
      const content = ((op as Json | null)?.requestBody as Json | undefined)?.content as Record<string, Json> | undefined;
      for (const media of Object.values(content ?? {})) {
        const ref = (media.schema as Json | undefined)?.$ref;
        const name = typeof ref === 'string' && ref.startsWith('#/components/schemas/') ? ref.slice('#/components/schemas/'.length) : null;
        if (name && hasDefaults(schemas[name])) media.schema = { ...structuredClone(schemas[name]!), title: name };
      }
    }
  }
}

/** Returns a fixed deep copy of `doc`. */
export function publishableOpenApi<T>(doc: T): T {
  const copy = structuredClone(doc);
  fix(copy);
  inlineRequestBodies(copy as Json);
  return copy;
}
