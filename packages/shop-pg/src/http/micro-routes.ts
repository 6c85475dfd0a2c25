/**
 * The routes of SPEC 8 (microbenchmarks): validate, call the app's micro
 * functions, answer JSON. Bad input is 400 naming the field.
 */
import type { FastifyInstance, FastifyReply } from "fastify";
import { z } from "zod";
import { Id } from "@sfbench/core";
import type { Micro } from "../app/api.ts";
import { parseInput } from "./validate.ts";

const int = (min: number, max: number) => z.number().int().min(min).max(max);
/** A query parameter holding an integer in min..max (text, so digits only). */
const queryInt = (min: number, max: number, fallback: number) =>
  z
    .string()
    .regex(/^-?\d+$/, { message: `must be an integer in ${min}..${max}` })
    .transform(Number)
    .pipe(int(min, max))
    .default(fallback);

const KeyQuery = { key: Id.default("micro") };
const EmptyQuery = z.object(KeyQuery);
const MathQuery = z.object({ ...KeyQuery, n: queryInt(1, 10_000_000, 1000) });
const SleepQuery = z.object({ ...KeyQuery, ms: queryInt(0, 10_000, 100) });
const IoBody = z.object({ key: Id, bytes: int(1, 1_048_576) });
const PingPongBody = z.object({ pairs: int(1, 64), messages: int(1, 100_000), bytes: int(0, 65_536) });
const DivideBody = z.object({ items: int(1, 1_000_000), fanout: int(2, 16), leaf: int(16, 100_000).default(1000), seed: int(0, 2 ** 31 - 1) });
const BigBody = z.object({ entities: int(2, 10_000), messages: int(1, 1_000_000), seed: int(0, 2 ** 31 - 1) });

function json(reply: FastifyReply, value: unknown): FastifyReply {
  return reply.type("application/json; charset=utf-8").send(JSON.stringify(value));
}

export function registerMicroRoutes(app: FastifyInstance, micro: Micro): void {
  app.get("/micro/empty", async (request, reply) => json(reply, await micro.empty(parseInput(EmptyQuery, request.query, {}).key)));

  app.get("/micro/math", async (request, reply) => {
    const { key, n } = parseInput(MathQuery, request.query, {});
    return json(reply, await micro.math(key, n));
  });

  app.get("/micro/sleep", async (request, reply) => {
    const { key, ms } = parseInput(SleepQuery, request.query, {});
    return json(reply, await micro.sleep(key, ms));
  });

  app.post("/micro/io", async (request, reply) => {
    const { key, bytes } = parseInput(IoBody, request.body);
    return json(reply, await micro.io(key, bytes));
  });

  app.post("/micro/pingpong", async (request, reply) => json(reply, await micro.pingpong(parseInput(PingPongBody, request.body))));
  app.post("/micro/divide", async (request, reply) => json(reply, await micro.divide(parseInput(DivideBody, request.body))));
  app.post("/micro/big", async (request, reply) => json(reply, await micro.big(parseInput(BigBody, request.body))));
}
