/**
 * The OpenAPI 3.1 document of the public API, generated from the route declarations (routes.ts;
 * docs/adr/0019). Only /api routes: /internal ones are between services and never routed from
 * outside. JSON Schema 2020-12 (OpenAPI 3.1's dialect) comes from zod's own z.toJSONSchema: what
 * a client sends is described as input (before a service's transforms), what it gets as output.
 */
import { z } from 'zod';
import { ERROR_CODES, ErrorBodySchema } from './errors.ts';
import { ALL_ROUTES, routes as namedRoutes, type RouteAccess, type RouteSpec } from './routes.ts';

type Json = Record<string, unknown>;

function schemaOf(schema: z.ZodType, io: 'input' | 'output'): Json {
  const out = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as Json;
  delete out.$schema; // the document's dialect is 2020-12 already
  return out;
}

const ACCESS_TEXT: Record<RouteAccess, string> = {
  public: 'Anyone, signed in or not.',
  user: 'A signed-in user (an agency user or ADMIN).',
  agency: 'A signed-in agency user.',
  admin: 'ADMIN only.',
  service: 'Other services only.',
};

function parametersOf(route: RouteSpec): Json[] {
  const out: Json[] = [];
  for (const [, name] of route.path.matchAll(/\{([A-Za-z0-9_]+)\}/g)) {
    const declared = route.params?.shape[name as string] as z.ZodType | undefined;
    out.push({
      name,
      in: 'path',
      required: true,
      schema: declared ? schemaOf(declared, 'input') : { type: 'string' },
    });
  }
  if (route.query) {
    for (const [name, field] of Object.entries(route.query.shape)) {
      out.push({ name, in: 'query', required: false, schema: schemaOf(field as z.ZodType, 'input') });
    }
  }
  return out;
}

function operationOf(route: RouteSpec, operationId: string): Json {
  const responses: Json = {};
  for (const [status, answer] of Object.entries(route.responses)) {
    const entry: Json = { description: answer.description };
    if (answer.schema) {
      entry.content = { [answer.contentType ?? 'application/json']: { schema: schemaOf(answer.schema, 'output') } };
    } else if (answer.contentType) {
      entry.content = { [answer.contentType]: { schema: { type: 'string', format: 'binary' } } };
    }
    if (answer.headers) {
      entry.headers = Object.fromEntries(
        Object.entries(answer.headers).map(([name, description]) => [
          name,
          { description, schema: { type: 'string' } },
        ]),
      );
    }
    responses[status] = entry;
  }
  responses.default = {
    description: `An error: { message, code } (code one of ${Object.values(ERROR_CODES).join(', ')})`,
    content: { 'application/json': { schema: schemaOf(ErrorBodySchema, 'output') } },
  };
  const operation: Json = {
    operationId,
    summary: route.summary,
    description: `Who may call it: ${ACCESS_TEXT[route.access]}${route.userLimit ? ` Counts against the per-user limit \`${route.userLimit}\`.` : ''}${route.addressLimit ? ` Counts against the per-address limit \`${route.addressLimit}\`.` : ''}`,
    tags: [route.owner],
    'x-nrad-access': route.access,
    'x-nrad-owner': route.owner,
    parameters: parametersOf(route),
    responses,
  };
  if (route.access !== 'public') operation.security = [{ session: [] }];
  if (route.body) {
    const multipart = route.bodyType === 'multipart';
    const schema = schemaOf(route.body, 'input');
    if (multipart) {
      (schema.properties as Json).file = { type: 'string', contentMediaType: 'application/octet-stream' };
    }
    operation.requestBody = {
      required: route.method !== 'DELETE',
      content: { [multipart ? 'multipart/form-data' : 'application/json']: { schema } },
    };
  }
  return operation;
}

/** The OpenAPI 3.1 document of every declared /api route. */
export function openApiDocument(routes: readonly RouteSpec[] = ALL_ROUTES, version = '1.0.0'): Json {
  const paths: Record<string, Json> = {};
  const names = new Map<RouteSpec, string>();
  for (const [, group] of Object.entries(routesByName(routes))) names.set(group.route, group.name);
  for (const route of routes) {
    if (!route.path.startsWith('/api/')) continue;
    paths[route.path] ??= {};
    (paths[route.path] as Json)[route.method.toLowerCase()] = operationOf(
      route,
      names.get(route) ?? `${route.method} ${route.path}`,
    );
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'NRAD API',
      version,
      description:
        'The API of NRAD behind its gateway, generated from the route declarations of @nrad/contracts (docs/adr/0019). ' +
        'Every call sends the session cookie; writes must come from the same origin.',
    },
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    servers: [{ url: '/' }],
    components: {
      securitySchemes: { session: { type: 'apiKey', in: 'cookie', name: 'nrad.sid' } },
    },
    paths,
  };
}

/** Operation ids from the declarations' names: routes.records.get → records.get. */
function routesByName(list: readonly RouteSpec[]): Record<string, { route: RouteSpec; name: string }> {
  const out: Record<string, { route: RouteSpec; name: string }> = {};
  for (const [group, members] of Object.entries(namedRoutes)) {
    for (const [name, route] of Object.entries(members)) {
      if (list.includes(route)) out[`${group}.${name}`] = { route, name: `${group}.${name}` };
    }
  }
  return out;
}
