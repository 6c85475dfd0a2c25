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
    const doc = buildOpenApi() as unknown as { paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: { properties: Record<string, { minimum?: number; maximum?: number; type?: string }> } }> } }>> };
    const price = doc.paths["/products"]!.post!.requestBody!.content["application/json"]!.schema.properties.price!;
    expect(price).toMatchObject({ type: "integer", minimum: 0, maximum: 2 ** 31 - 1 });
  });
});
