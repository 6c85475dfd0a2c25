/**
 * SPEC 8 microbenchmark routes: validation (400 naming the field), and one
 * request to the job's `micro` function each. The job answers through the
 * egress like any other request; the messaging routes get a no-answer
 * deadline that grows with the work they ask for (MICRO_BUDGET).
 */
import { randomUUID } from "node:crypto";
import type { FastifyInstance, FastifyReply } from "fastify";
import { z } from "zod";
import { describeZodError, Id } from "@sfbench/core";
import type { Answer, Request } from "./bridge.ts";

const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max);
const bodyInt = (min: number, max: number) => z.number().int().min(min).max(max);
const MAX_INT = 2 ** 31 - 1;

export const MicroKeyQuery = z.object({ key: Id.default("micro") });
export const MicroMathQuery = MicroKeyQuery.extend({ n: int(1, 10_000_000).default(1000) });
export const MicroSleepQuery = MicroKeyQuery.extend({ ms: int(0, 10_000).default(100) });
export const MicroIoBody = z.object({ key: Id, bytes: bodyInt(1, 1_048_576) });
export const PingpongBody = z.object({ pairs: bodyInt(1, 64), messages: bodyInt(1, 100_000), bytes: bodyInt(0, 65_536) });
export const DivideBody = z.object({
  items: bodyInt(1, 1_000_000),
  fanout: bodyInt(2, 16),
  leaf: bodyInt(16, 100_000).default(1000),
  seed: bodyInt(0, MAX_INT),
});
export const BigBody = z.object({ entities: bodyInt(2, 10_000), messages: bodyInt(1, 1_000_000), seed: bodyInt(0, MAX_INT) });

/**
 * How much longer than GATEWAY_TIMEOUT_MS the gateway waits for a messaging
 * request before it answers 504 no-answer: a share per unit of work well above
 * what it costs on a loaded machine (README: "Micro routes"), so only a lost
 * message or a stuck job runs into it.
 */
export const MICRO_BUDGET = {
  sleep: (ms: number) => ms,
  /** per round trip of all pairs (two function-to-function messages; the pairs share the job): 1 ms, and 1 ms per 16 KiB of payload */
  pingpong: (pairs: number, messages: number, bytes: number) => pairs * messages * (1 + bytes / 16_384),
  /** per item (generated, copied into the children's messages at every level, sorted and merged): 10 us */
  divide: (items: number) => items * 0.01,
  /** 20 us per message, 1 ms per entity (each gets an await and a send from the coordinator, and answers once) */
  big: (entities: number, messages: number) => messages * 0.02 + entities,
};

export type Ask = (message: Request, extraMs?: number) => Promise<Answer>;

export class MicroBadRequest extends Error {}

function parse<T>(schema: z.ZodType<T>, value: unknown): T {
  const result = schema.safeParse(value);
  if (!result.success) throw new MicroBadRequest(describeZodError(result.error));
  return result.data;
}

function object(body: unknown): unknown {
  if (body === undefined) throw new MicroBadRequest("body: a JSON object is required");
  return body;
}

export function registerMicroRoutes(app: FastifyInstance, ask: Ask, relay: (reply: FastifyReply, answer: Answer) => FastifyReply): void {
  app.get("/micro/empty", async (request, reply) => {
    const { key } = parse(MicroKeyQuery, request.query);
    return relay(reply, await ask({ type: "micro.empty", key }));
  });
  app.get("/micro/math", async (request, reply) => {
    const { key, n } = parse(MicroMathQuery, request.query);
    return relay(reply, await ask({ type: "micro.math", key, n }));
  });
  app.get("/micro/sleep", async (request, reply) => {
    const { key, ms } = parse(MicroSleepQuery, request.query);
    return relay(reply, await ask({ type: "micro.sleep", key, ms }, MICRO_BUDGET.sleep(ms)));
  });
  app.post("/micro/io", async (request, reply) => {
    const { key, bytes } = parse(MicroIoBody, object(request.body));
    return relay(reply, await ask({ type: "micro.io", key, bytes }));
  });
  app.post("/micro/pingpong", async (request, reply) => {
    const { pairs, messages, bytes } = parse(PingpongBody, object(request.body));
    // keyed by the correlation id: the request's own coordinator
    return relay(reply, await ask({ type: "micro.pingpong", pairs, messages, bytes }, MICRO_BUDGET.pingpong(pairs, messages, bytes)));
  });
  app.post("/micro/divide", async (request, reply) => {
    const { items, fanout, leaf, seed } = parse(DivideBody, object(request.body));
    return relay(reply, await ask({ type: "micro.divide", key: `divide-${randomUUID()}`, count: items, fanout, leaf, seed }, MICRO_BUDGET.divide(items)));
  });
  app.post("/micro/big", async (request, reply) => {
    const { entities, messages, seed } = parse(BigBody, object(request.body));
    return relay(reply, await ask({ type: "micro.big", key: `big-run-${randomUUID()}`, entities, messages, seed }, MICRO_BUDGET.big(entities, messages)));
  });
}
