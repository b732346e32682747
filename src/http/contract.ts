/**
 * Loads openapi.yaml once and turns it into what the server needs per request: a route
 * table (static paths before templates, compiled once — openapi-backend's own matcher
 * rebuilds its regexes on every call) and openapi-backend's precompiled Ajv 2020 validators.
 */
import { readContractDocument } from './contract-document.ts';
import { OpenAPIBackend, type Operation } from 'openapi-backend';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { ErrorIssue } from './app-error.ts';
import type { OperationId } from '../generated/operation-ids.ts';

// ajv-formats is CommonJS; its default export arrives wrapped under ESM interop.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv2020) => Ajv2020;

export interface RouteMatch {
  operation: Operation;
  operationId: OperationId;
  /** Decoded path parameters; a parameter that does not decode is absent and named in issues. */
  params: Record<string, string>;
  /** Path parameters that are not valid percent-encoded UTF-8 or carry a NUL (`path.<name>`). */
  issues: ErrorIssue[];
}

export interface Contract {
  api: OpenAPIBackend;
  definition: Record<string, any>;
  /** The contract's operations; codegen --check keeps src/generated/operation-ids.ts equal to them. */
  operationIds: OperationId[];
  match(method: string, path: string): RouteMatch | 'method_not_allowed' | undefined;
  /** Validates params, query, headers and (for JSON operations) the parsed body. */
  validate(operation: Operation, request: { method: string; path: string; headers: Record<string, string | string[] | undefined>; query: Record<string, string>; body?: unknown }): ErrorIssue[];
  /** Compiles the request validators in the background (they also compile on first use). */
  warmValidators(): Promise<void>;
  /** True when the operation takes a JSON body (buffered and validated before the handler). */
  takesJson(operation: Operation): boolean;
}

interface CompiledRoute {
  method: string;
  regex: RegExp;
  names: string[];
  staticLength: number;
  operation: Operation;
}

/** The document's operationId, as the generated type names it (openapi.yaml and src/generated are kept equal by codegen --check). */
const idOf = (op: Operation) => op.operationId as OperationId;

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export async function loadContract(file: string): Promise<Contract> {
  const definition = readContractDocument(file);
  const api = new OpenAPIBackend({
    definition,
    strict: true,
    validate: true,
    // quick: no meta-schema check of the document and no eager response validators at every
    // start (about 3 s of Ajv compilation: every start-up, every restart). The document is
    // checked in strict mode by test/http/contract.test.ts; the request validators the server
    // needs are compiled by warmValidators once the server listens.
    quick: true,
    customizeAjv: (_ajv, opts) => {
      const ajv = new Ajv2020({ ...opts, strict: false, allErrors: true });
      addFormats(ajv);
      // openapi-backend registers `binary` on its own Ajv; this fresh one needs it too.
      ajv.addFormat('binary', true);
      return ajv as never;
    },
  });
  await api.init();
  const operations = api.router.getOperations();
  const staticRoutes = new Map<string, Operation>();
  const templates: CompiledRoute[] = [];
  for (const op of operations) {
    const method = op.method.toUpperCase();
    if (!op.path.includes('{')) {
      staticRoutes.set(`${method} ${op.path}`, op);
      continue;
    }
    const names: string[] = [];
    const pattern = op.path
      .split(/(\{[^}]+\})/)
      .map((part) => {
        const m = /^\{([^}]+)\}$/.exec(part);
        if (!m) return escapeRegex(part);
        names.push(m[1]);
        return '([^/]+)';
      })
      .join('');
    templates.push({ method, regex: new RegExp(`^${pattern}$`), names, staticLength: op.path.replace(/\{[^}]+\}/g, '').length, operation: op });
  }
  // The most literal template wins: /v1/_seller/{wallet}/endpoints before /v1/{slug}/{path_suffix}.
  templates.sort((a, b) => b.staticLength - a.staticLength);
  const staticPaths = new Set(operations.filter((o) => !o.path.includes('{')).map((o) => o.path));

  const takesJson: Contract['takesJson'] = (operation) => {
    const content = (operation.requestBody as { content?: Record<string, unknown> } | undefined)?.content;
    return !!content && Object.keys(content).every((type) => type === 'application/json');
  };

  const match: Contract['match'] = (method, rawPath) => {
    const path = rawPath.length > 1 && rawPath.endsWith('/') ? rawPath.slice(0, -1) : rawPath;
    const upper = method.toUpperCase();
    const lookup = upper === 'HEAD' ? 'GET' : upper;
    const exact = staticRoutes.get(`${lookup} ${path}`);
    if (exact) return { operation: exact, operationId: idOf(exact), params: {}, issues: [] };
    let pathSeen = staticPaths.has(path);
    for (const route of templates) {
      const m = route.regex.exec(path);
      if (!m) continue;
      if (route.method !== lookup) {
        pathSeen = true;
        continue;
      }
      const params: Record<string, string> = {};
      const issues: ErrorIssue[] = [];
      route.names.forEach((name, i) => {
        const decoded = decodeStrict(m[i + 1]);
        if (typeof decoded === 'string') params[name] = decoded;
        else issues.push({ path: `path.${name}`, message: decoded.problem, keyword: 'encoding' });
      });
      return { operation: route.operation, operationId: idOf(route.operation), params, issues };
    }
    return pathSeen ? 'method_not_allowed' : undefined;
  };

  // An upload without query whose operation takes only optional headers has nothing for the
  // validator to look at, except headers whose schema says more than "a string" (Node hands
  // every header over as a string): the paid paths (402 and replay) skip openapi-backend's
  // request parsing there. Anything else (a path template, a JSON body, a query, a constrained
  // header present, a $ref we did not resolve) goes through the full validation.
  const optionalHeaders = new Map<Operation, string[] | null>();
  const anyString = (schema: unknown) => {
    const s = (schema ?? {}) as Record<string, unknown>;
    return s.type === 'string' && Object.keys(s).every((k) => k === 'type' || k === 'description' || k === 'example');
  };
  for (const op of operations) {
    const params = (op.parameters ?? []) as { in?: string; name?: string; required?: boolean; $ref?: string; schema?: unknown }[];
    const simple = !takesJson(op) && params.every((p) => !p.$ref && p.in === 'header' && !p.required && typeof p.name === 'string');
    optionalHeaders.set(op, simple ? params.filter((p) => !anyString(p.schema)).map((p) => p.name!.toLowerCase()) : null);
  }
  const nothingToValidate = (operation: Operation, request: { headers: Record<string, unknown>; query: Record<string, string>; body?: unknown }) => {
    const headers = optionalHeaders.get(operation);
    if (!headers || request.body !== undefined) return false;
    for (const _ in request.query) return false;
    return headers.every((h) => request.headers[h] === undefined);
  };

  const validate: Contract['validate'] = (operation, request) => {
    if (nothingToValidate(operation, request)) return [];
    const result = api.validator.validateRequest(
      { method: request.method, path: request.path, headers: request.headers as Record<string, string | string[]>, query: request.query, body: request.body },
      operation,
    );
    if (result.valid) return [];
    return (result.errors ?? []).map(toIssue);
  };

  // Request validators compile on first use (about 0.6 s for all of them); warmValidators
  // compiles them one at a time after the server listens, so start-up does not wait for it
  // and a first request rarely pays for its own.
  const warmValidators = async () => {
    for (const op of operations) {
      await new Promise((r) => setImmediate(r));
      api.validator.getRequestValidatorsForOperation(op.operationId!);
    }
  };

  return { api, definition, operationIds: operations.map(idOf), match, validate, takesJson, warmValidators };
}

/**
 * Percent-decoding that refuses instead of guessing: a bad escape (`%zz`, a lone `%`), bytes
 * that are not UTF-8 (`%ff`), an encoded surrogate (`%ED%A0%80`) or a NUL cannot name anything
 * we store, and PostgreSQL refuses NUL in text outright. Exported for the query string too.
 */
export function decodeStrict(raw: string): string | { problem: string } {
  let decoded: string;
  try {
    decoded = decodeURIComponent(raw);
  } catch {
    return { problem: 'is not valid percent-encoded UTF-8 (a bad %-escape or bytes that are not UTF-8)' };
  }
  return checkText(decoded) ?? decoded;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** A problem with a decoded string that must never reach the database, or undefined. */
export function checkText(s: string): { problem: string } | undefined {
  if (s.includes('\0')) return { problem: 'contains a NUL character' };
  if (LONE_SURROGATE.test(s)) return { problem: 'is not valid Unicode (a lone surrogate)' };
  return undefined;
}

/** Ajv's error -> one issue naming the field, e.g. `body.atomic_price: must be integer`. */
function toIssue(err: { instancePath: string; message?: string; keyword: string; params: Record<string, unknown> }): ErrorIssue {
  // openapi-backend prefixes instance paths with the request part: /requestBody, /path, /query, /headers.
  const [, part = '', ...rest] = err.instancePath.split('/');
  const where = part === 'requestBody' ? 'body' : part;
  let segments = rest.filter(Boolean);
  if (err.keyword === 'required' && typeof err.params.missingProperty === 'string') segments = [...segments, err.params.missingProperty];
  if (err.keyword === 'additionalProperties' && typeof err.params.additionalProperty === 'string') segments = [...segments, err.params.additionalProperty];
  const path = [where || 'body', ...segments].join('.');
  const message = err.keyword === 'required' ? 'is required' : err.keyword === 'additionalProperties' ? 'is not an allowed field' : (err.message ?? 'is invalid');
  return { path, message, keyword: err.keyword };
}
