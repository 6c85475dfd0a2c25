/**
 * The routes of SPEC 8 (microbenchmarks): validate, call the Micro objects
 * over RPC, answer JSON. Bad input is 400 naming the field. The messaging
 * routes start a driver object of their own (one per request).
 */
import { z } from "zod";
import { Id } from "@sfbench/core/api";
import type { Env } from "../app/env.ts";
import { json, parse, readJson } from "./http.ts";

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

type Handler = (request: Request, env: Env, query: Record<string, string>) => Promise<Response>;

const driver = (env: Env) => {
  const run = crypto.randomUUID();
  return { run, stub: env.MICRO_DRIVER.getByName(run) };
};

export const MICRO_ROUTES: Record<string, Handler> = {
  "GET /micro/empty": async (_r, env, query) => {
    const { key } = parse(EmptyQuery, query);
    return json(await env.MICRO.getByName(key).empty());
  },
  "GET /micro/math": async (_r, env, query) => {
    const { key, n } = parse(MathQuery, query);
    return json(await env.MICRO.getByName(key).math(n));
  },
  "GET /micro/sleep": async (_r, env, query) => {
    const { key, ms } = parse(SleepQuery, query);
    return json(await env.MICRO.getByName(key).sleep(ms));
  },
  "POST /micro/io": async (request, env) => {
    const { key, bytes } = parse(IoBody, await readJson(request));
    return json({ key, ...(await env.MICRO.getByName(key).io(bytes)) });
  },
  "POST /micro/pingpong": async (request, env) => {
    const { pairs, messages, bytes } = parse(PingPongBody, await readJson(request));
    const { run, stub } = driver(env);
    return json(await stub.pingpong(run, pairs, messages, bytes));
  },
  "POST /micro/divide": async (request, env) => {
    const { items, fanout, leaf, seed } = parse(DivideBody, await readJson(request));
    const { run, stub } = driver(env);
    return json(await stub.divide(run, items, fanout, leaf, seed));
  },
  "POST /micro/big": async (request, env) => {
    const { entities, messages, seed } = parse(BigBody, await readJson(request));
    const { run, stub } = driver(env);
    return json(await stub.big(run, entities, messages, seed));
  },
};
