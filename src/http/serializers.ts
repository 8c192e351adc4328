// Response serializers compiled once per distinct schema. Fastify compiles a fast-json-stringify
// serializer for every route and status at start-up; most of them are the same few schemas (the ApiError
// of 400/401/404/422/429/500 on every route, shared components by $ref), and each compile validates the
// schema and builds the function again: about half a second of CPU per app start on a quiet machine,
// seconds on a loaded one (issue 25: the test suite starts hundreds of apps). The serializer depends on
// the schema and the shared schemas only (the route, method and status are not used by the compiler),
// so identical schemas get the same function.
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';

type Compile = (route: { schema: unknown; method: string; url: string; httpStatus: string; contentType?: string }) => (data: unknown) => string;

// Fastify builds a compiler for each plugin context (each with its copy of the shared schemas), so the
// memo is keyed by the shared schemas' text too; it is kept for the process (a bounded set: one function
// per distinct response schema), so every app a process builds reuses it.
const memo = new Map<string, Map<string, (data: unknown) => string>>();

/** Fastify's `schemaController.compilersFactory.buildSerializer`, memoized by schema. */
export function sharedSerializers(externalSchemas: unknown, serializerOpts: unknown): Compile {
  const compile = (SerializerSelector() as unknown as (e: unknown, o: unknown) => Compile)(externalSchemas, serializerOpts);
  const context = JSON.stringify([externalSchemas ?? null, serializerOpts ?? null]);
  let compiled = memo.get(context);
  if (compiled === undefined) memo.set(context, (compiled = new Map()));
  const cache = compiled;
  // Compiled on first use, not at start-up (ADR 0243: compiling every route's serializers was a third of
  // a server's start-up CPU), and then shared by every route with the same schema.
  const lookup = (route: Parameters<Compile>[0]) => {
    const key = JSON.stringify(route.schema);
    let fn = cache.get(key);
    if (fn === undefined) {
      fn = compile(route);
      cache.set(key, fn);
    }
    return fn;
  };
  return (route) => {
    let fn: ((data: unknown) => string) | null = null;
    return (data) => (fn ??= lookup(route))(data);
  };
}
