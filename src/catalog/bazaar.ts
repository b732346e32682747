/**
 * The x402 `bazaar` discovery extension: how to call an endpoint and what it answers, as
 * `{info, schema}` (the schema validates `info`, JSON Schema 2020-12). Built-ins describe
 * themselves from the contract (the 200 answer's schema and example); seller endpoints from
 * their `sample_body`.
 */
export interface BazaarExtension {
  info: {
    input: { type: 'http'; method: 'POST'; bodyType: 'json' | 'form-data'; body: unknown };
    output: { type: 'json'; example?: unknown };
  };
  schema: Record<string, unknown>;
}

export function bazaarExtension(input: BazaarExtension['info']['input'], output: { example?: unknown; schema?: Record<string, unknown> }): BazaarExtension {
  return {
    info: { input, output: { type: 'json', ...(output.example === undefined ? {} : { example: output.example }) } },
    schema: {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: {
        input: {
          type: 'object',
          properties: {
            type: { type: 'string', const: 'http' },
            method: { type: 'string', enum: ['POST', 'PUT', 'PATCH'] },
            bodyType: { type: 'string', enum: ['json', 'form-data', 'text'] },
            body: {},
            queryParams: { type: 'object', additionalProperties: { type: 'string' } },
            headers: { type: 'object', additionalProperties: { type: 'string' } },
          },
          required: ['type', 'method', 'bodyType', 'body'],
          additionalProperties: false,
        },
        output: {
          type: 'object',
          properties: { type: { type: 'string' }, format: { type: 'string' }, example: output.schema ?? {} },
          required: ['type'],
        },
      },
      required: ['input'],
    },
  };
}

type Json = Record<string, any>;

/** A built-in from the (dereferenced) contract: a document in, the 200 answer's schema and first example out. */
export function builtinBazaar(dereferenced: Json, path: string): BazaarExtension {
  const ok: Json | undefined = dereferenced.paths?.[path]?.post?.responses?.['200']?.content?.['application/json'];
  const example = ok?.examples ? (Object.values(ok.examples as Json)[0] as Json | undefined)?.value : ok?.example;
  return bazaarExtension(
    { type: 'http', method: 'POST', bodyType: 'form-data', body: { file: 'the document (PDF, or PNG/JPEG for invoice-extract); a raw body with its content type works too' } },
    { example, schema: ok?.schema },
  );
}

/** A seller endpoint: its sample body in, JSON out (what the activation probes required). */
export const sellerBazaar = (sampleBody: unknown): BazaarExtension =>
  bazaarExtension({ type: 'http', method: 'POST', bodyType: 'json', body: sampleBody ?? {} }, {});
