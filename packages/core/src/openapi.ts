/**
 * OpenAPI 3.1 of the application API, generated from the zod schemas in
 * api.ts (OpenAPI 3.1 uses JSON Schema 2020-12, which z.toJSONSchema emits).
 */
import { z } from "zod";
import { ErrorBody, Id, routes, type RouteDef } from "./api.ts";

const json = (schema: z.ZodType, io: "input" | "output") => {
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: "any" }) as Record<string, unknown>;
  return rest;
};

const STATUS_TEXT: Record<number, string> = {
  400: "Bad request: malformed JSON, wrong types, out-of-range numbers, an id over 128 characters or with a NUL character",
  404: "Entity not found",
  409: "Business conflict (see the error code)",
  503: "Still starting",
};

/** A body whose fields are all optional may be left out: no body means `{}` (SPEC 2). */
function requestBody(body: z.ZodType) {
  const optional = body.safeParse({}).success;
  return {
    required: !optional,
    ...(optional ? { description: "May be left out: no body means {}" } : {}),
    content: { "application/json": { schema: json(body, "input") } },
  };
}

function operation(route: RouteDef) {
  const params = [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => ({
    name: m[1],
    in: "path",
    required: true,
    schema: json(Id, "input"),
  }));
  const query = route.query
    ? Object.entries((json(route.query, "input").properties ?? {}) as Record<string, unknown>).map(([name, schema]) => ({
        name,
        in: "query",
        required: false,
        schema,
      }))
    : [];
  const responses: Record<string, unknown> = {
    "200": {
      description: "Success",
      ...(route.ok ? { content: { "application/json": { schema: json(route.ok, "output") } } } : {}),
    },
  };
  for (const status of route.errors) {
    responses[String(status)] = {
      description: STATUS_TEXT[status] ?? "Error",
      content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
    };
  }
  return {
    summary: route.summary,
    operationId: `${route.method.toLowerCase()}${route.path.replace(/[{}]/g, "").replace(/(^|[/-])(\w)/g, (_, _s, c: string) => c.toUpperCase())}`,
    ...(params.length + query.length ? { parameters: [...params, ...query] } : {}),
    ...(route.body ? { requestBody: requestBody(route.body) } : {}),
    responses,
  };
}

export function buildOpenApi(version = "1.0.0") {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    (paths[route.path] ??= {})[route.method.toLowerCase()] = operation(route);
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "sfbench application API",
      version,
      description: "The e-commerce application every sfbench target implements (SPEC section 2). Generated from packages/core/src/api.ts; do not edit by hand.",
    },
    paths,
    components: { schemas: { Error: json(ErrorBody, "output") } },
  };
}

/** The committed file's text: stable formatting so that drift checks compare strings. */
export function openApiText(): string {
  return JSON.stringify(buildOpenApi(), null, 2) + "\n";
}
