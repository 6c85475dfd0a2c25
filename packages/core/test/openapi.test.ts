import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { buildOpenApi, openApiText } from "../src/openapi.ts";
import { routes } from "../src/api.ts";

describe("docs/openapi.json", () => {
  it("matches the zod schemas it is generated from (run `npm run openapi` after changing api.ts)", () => {
    const committed = readFileSync(fileURLToPath(new URL("../../../docs/openapi.json", import.meta.url)), "utf8");
    expect(committed).toBe(openApiText());
  });

  it("is OpenAPI 3.1 with every route of SPEC 2 and its error statuses", () => {
    const doc = buildOpenApi();
    expect(doc.openapi).toBe("3.1.0");
    for (const r of routes) {
      const op = doc.paths[r.path]?.[r.method.toLowerCase()] as { responses: Record<string, unknown> } | undefined;
      expect(op, `${r.method} ${r.path}`).toBeDefined();
      expect(Object.keys(op!.responses).sort()).toEqual(["200", ...r.errors.map(String)].sort());
    }
    expect(routes).toHaveLength(13);
  });

  it("states the integer bounds of request bodies", () => {
    const doc = buildOpenApi() as unknown as {
      paths: Record<
        string,
        Record<
          string,
          { requestBody?: { content: Record<string, { schema: { properties: Record<string, { minimum?: number; maximum?: number; type?: string }> } }> } }
        >
      >;
    };
    const price = doc.paths["/products"]!.post!.requestBody!.content["application/json"]!.schema.properties.price!;
    expect(price).toMatchObject({ type: "integer", minimum: 0, maximum: 2 ** 31 - 1 });
  });

  type Op = {
    parameters?: Array<{ name: string; in: string; schema: { pattern?: string; maxLength?: number } }>;
    requestBody?: { required: boolean };
    responses: Record<string, unknown>;
  };
  const ops = () =>
    Object.entries(buildOpenApi().paths).flatMap(([path, methods]) => Object.entries(methods).map(([method, op]) => ({ path, method, op: op as Op })));

  it("lists 400 for every route with an {id} (too long, or a NUL in it), and says so in the id's schema", () => {
    const withId = ops().filter((o) => o.path.includes("{id}"));
    expect(withId).toHaveLength(8);
    for (const { path, method, op } of withId) {
      expect(Object.keys(op.responses), `${method} ${path}`).toContain("400");
      const id = op.parameters!.find((p) => p.name === "id")!;
      expect(id.schema).toMatchObject({ type: "string", minLength: 1, maxLength: 128 });
      expect(new RegExp(id.schema.pattern!, "u").test("a\u0000b"), `${method} ${path}`).toBe(false);
      expect(new RegExp(id.schema.pattern!, "u").test("3f0c-\u00e9-/x"), `${method} ${path}`).toBe(true);
    }
  });

  it("marks a body required only when it has a required field (no body means {})", () => {
    const required = Object.fromEntries(
      ops()
        .filter((o) => o.op.requestBody)
        .map((o) => [`${o.method} ${o.path}`, o.op.requestBody!.required]),
    );
    expect(required).toEqual({
      "post /products": false,
      "patch /products/{id}": false,
      "post /users": false,
      "patch /users/{id}/credits/add": true,
      "post /shopping-carts/{id}/products": true,
      "post /orders/checkout": true,
    });
  });
});
