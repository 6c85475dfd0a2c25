/**
 * The gateway on its own (Fastify inject, no Restate): what it refuses before
 * calling the ingress, and what it answers when Restate cannot be reached.
 */
import { afterAll, describe, expect, it } from "vitest";
import { ErrorBody } from "@sfbench/core";
import { buildGateway } from "../src/gateway/app.ts";
import { Ingress } from "../src/gateway/ingress.ts";

// nothing listens on port 1: every call to the ingress fails to connect
const ingress = new Ingress("http://127.0.0.1:1", 2);
const app = buildGateway({ ingress, logLevel: "silent" });
afterAll(async () => {
  await app.close();
  await ingress.close();
});

const errorOf = (body: string) => ErrorBody.parse(JSON.parse(body));

describe("the gateway", () => {
  it("refuses bad input with 400 naming the field, without calling Restate", async () => {
    const res = await app.inject({ method: "POST", url: "/products", payload: { price: -1 } });
    expect(res.statusCode).toBe(400);
    expect(errorOf(res.body)).toMatchObject({ error: "bad-request", message: expect.stringMatching(/^price: /) });
  });

  it("refuses a freq-items query whose visit tree could exceed the limit", async () => {
    const res = await app.inject({ method: "GET", url: "/products/p1/freq-items?top=100&depth=20" });
    expect(res.statusCode).toBe(400);
    expect(errorOf(res.body).message).toMatch(/^top=100&depth=20: the visit tree could hold more than 100000 products/);
  });

  it("answers 503 with a JSON error body when Restate's ingress cannot be reached", async () => {
    const res = await app.inject({ method: "GET", url: "/products/p1" });
    expect(res.statusCode).toBe(503);
    expect(errorOf(res.body)).toMatchObject({ error: "internal", message: expect.stringMatching(/^Restate ingress: /) });
  });

  it("keeps the error shape for unknown routes", async () => {
    const res = await app.inject({ method: "DELETE", url: "/products/p1" });
    expect(res.statusCode).toBe(404);
    expect(errorOf(res.body).error).toBe("not-found");
  });
});
