/**
 * SPEC 8 microbenchmarks with DBOS's own machinery. An invocation is a DBOS
 * workflow (its status row written when it starts and when it ends); an entity
 * is a workflow too, and entities talk through DBOS messaging: DBOS.send /
 * DBOS.recv (ping-pong, big), child workflows started with DBOS.startWorkflow
 * and awaited with getResult (divide: the input and output of a child are its
 * message), DBOS.setEvent / getEvent (the start signal of big). handlerNs is
 * the time spent inside the workflow function that answers the request
 * (process.hrtime.bigint), not in Fastify.
 *
 * The `key` of empty, math and sleep names nothing in DBOS: every call is a
 * workflow of its own, and none of them touches state.
 */
import { createHash } from "node:crypto";
import { DBOS } from "@dbos-inc/dbos-sdk";
import { histogram, merge, now, payload, random, since, type Db, type Micro } from "@sfbench/shop-pg";
import { txStep } from "./steps.ts";

/** How long an entity waits for a message before the request fails (DBOS.recv's default is 60 s). */
const RECV_TIMEOUT = { timeoutSeconds: 600 };

/** The ascii payload of `bytes` bytes as a string (DBOS messages are JSON). */
const text = (bytes: number) => payload(bytes).toString("latin1");

/** A message that must have arrived: recv() answers null only on a timeout. */
async function receive<T>(topic: string): Promise<T> {
  const message = await DBOS.recv<T>(topic, RECV_TIMEOUT);
  if (message === null) throw new Error(`workflow ${DBOS.workflowID}: no ${topic} message within ${RECV_TIMEOUT.timeoutSeconds} s`);
  return message;
}

interface Sorted {
  sorted: number[];
  entities: number;
}

/** Registers the micro workflows (before DBOS.launch()) and returns the route functions. */
export function registerMicro(db: Db): Micro {
  const empty = DBOS.registerWorkflow(
    async () => {
      const start = now();
      return { handlerNs: since(start) };
    },
    { name: "microEmpty" },
  );

  const math = DBOS.registerWorkflow(
    async (n: number) => {
      const start = now();
      // A step: its random samples are not replayed, its estimate is.
      const pi = await DBOS.runStep(
        async () => {
          let inside = 0;
          for (let i = 0; i < n; i++) {
            const x = Math.random();
            const y = Math.random();
            if (x * x + y * y <= 1) inside++;
          }
          return (4 * inside) / n;
        },
        { name: "monteCarlo" },
      );
      return { n, pi, handlerNs: since(start) };
    },
    { name: "microMath" },
  );

  const sleep = DBOS.registerWorkflow(
    async (ms: number) => {
      const start = now();
      // A durable sleep: DBOS records the wake-up time, so a recovered workflow sleeps only what is left.
      await DBOS.sleepms(ms);
      // Its timer is due against the event loop's cached clock and can fire up to a
      // millisecond early on the handler's own clock: wait out the rest.
      for (let left = ms - since(start) / 1e6; left > 0; left = ms - since(start) / 1e6) {
        await new Promise((resolve) => setTimeout(resolve, Math.ceil(left)));
      }
      return { ms, handlerNs: since(start) };
    },
    { name: "microSleep" },
  );

  const io = DBOS.registerWorkflow(
    async (key: string, bytes: number) => {
      const start = now();
      const sha256 = await txStep(db, "writeAndRead", async (tx) => {
        await tx.query("INSERT INTO micro_io (key, payload) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET payload = excluded.payload", [key, payload(bytes)]);
        const { rows } = await tx.query<{ payload: Buffer }>("SELECT payload FROM micro_io WHERE key = $1", [key]);
        return createHash("sha256").update(rows[0]!.payload).digest("hex");
      });
      return { key, bytes, sha256, handlerNs: since(start) };
    },
    { name: "microIo" },
  );

  /** pong-i: answers each ping with its payload. */
  const pong = DBOS.registerWorkflow(
    async (ping: string, messages: number) => {
      for (let m = 0; m < messages; m++) await DBOS.send(ping, await receive<string>("ping"), "pong");
    },
    { name: "microPong" },
  );

  /** ping-i: `messages` round trips to pong-i, one after another; answers the round-trip histogram. */
  const ping = DBOS.registerWorkflow(
    async (pongId: string, messages: number, bytes: number) => {
      const body = text(bytes);
      const rtt = histogram();
      for (let m = 0; m < messages; m++) {
        const sent = now();
        await DBOS.send(pongId, body, "ping");
        const reply = await receive<string>("pong");
        if (reply.length !== bytes) throw new Error(`${pongId} answered ${reply.length} bytes, not ${bytes}`);
        rtt.add(since(sent));
      }
      return rtt.buckets();
    },
    { name: "microPing" },
  );

  const pingpong = DBOS.registerWorkflow(
    async (pairs: number, messages: number, bytes: number) => {
      const start = now();
      const run = DBOS.workflowID!;
      // Every pong exists before its ping sends to it (DBOS.send needs a destination workflow).
      const pongs = [];
      for (let i = 0; i < pairs; i++) pongs.push(await DBOS.startWorkflow(pong, { workflowID: `${run}:pong-${i}` })(`${run}:ping-${i}`, messages));
      const first = now();
      const pings = [];
      for (let i = 0; i < pairs; i++) pings.push(await DBOS.startWorkflow(ping, { workflowID: `${run}:ping-${i}` })(`${run}:pong-${i}`, messages, bytes));
      const histograms = await Promise.all(pings.map((h) => h.getResult()));
      const totalNs = since(first);
      await Promise.all(pongs.map((h) => h.getResult()));
      const merged = histograms[0]!.map(([le], b): [number | null, number] => [le, histograms.reduce((sum, h) => sum + h[b]![1], 0)]);
      return { pairs, messages: pairs * messages, bytes, totalNs, histogram: merged, handlerNs: since(start) };
    },
    { name: "microPingPong" },
  );

  /** One divide entity: sorts its slice, or splits it among `fanout` child workflows and merges their answers. */
  const divideNode: (slice: number[], fanout: number, leaf: number) => Promise<Sorted> = DBOS.registerWorkflow(
    async (slice: number[], fanout: number, leaf: number): Promise<Sorted> => {
      if (slice.length <= leaf) return { sorted: slice.sort((a, b) => a - b), entities: 1 };
      const children = [];
      for (let j = 0; j < fanout; j++) {
        const part = slice.slice(Math.floor((j * slice.length) / fanout), Math.floor(((j + 1) * slice.length) / fanout));
        children.push(await DBOS.startWorkflow(divideNode)(part, fanout, leaf));
      }
      const answers = await Promise.all(children.map((h) => h.getResult()));
      return { sorted: merge(answers.map((a) => a.sorted)), entities: 1 + answers.reduce((n, a) => n + a.entities, 0) };
    },
    { name: "microDivideNode" },
  );

  const divide = DBOS.registerWorkflow(
    async (items: number, fanout: number, leaf: number, seed: number) => {
      const start = now();
      const input = new Array<number>(items);
      let x = BigInt(seed);
      for (let k = 0; k < items; k++) {
        x = (1103515245n * x + 12345n) % 2147483648n;
        input[k] = Number(x % 1_000_000n);
      }
      const first = now();
      const { sorted, entities } = await DBOS.startWorkflow(divideNode)(input, fanout, leaf).then((h) => h.getResult());
      const totalNs = since(first);
      let checksum = 0n;
      for (let i = 0; i < sorted.length; i++) checksum = (checksum + BigInt(sorted[i]!) * BigInt(i + 1)) % 2147483647n;
      return { items, first: sorted[0]!, last: sorted.at(-1)!, checksum: Number(checksum), entities, totalNs, handlerNs: since(start) };
    },
    { name: "microDivide" },
  );

  /** big-i: waits for the start signal, sends its messages, then receives the `expect` messages addressed to it. */
  const bigEntity = DBOS.registerWorkflow(
    async (run: string, receivers: number[], expect: number) => {
      await DBOS.getEvent<boolean>(run, "start", RECV_TIMEOUT.timeoutSeconds);
      for (const r of receivers) await DBOS.send(`${run}:big-${r}`, 1, "big");
      let received = 0;
      while (received < expect) received += await receive<number>("big");
      return received;
    },
    { name: "microBigEntity" },
  );

  const big = DBOS.registerWorkflow(
    async (entities: number, messages: number, seed: number) => {
      const start = now();
      const run = DBOS.workflowID!;
      // Who sends to whom, drawn here so that each entity knows how many messages to wait for.
      const receivers: number[][] = [];
      const expect = new Array<number>(entities).fill(0);
      for (let sender = 0; sender < entities; sender++) {
        const share = Math.floor(messages / entities) + (sender < messages % entities ? 1 : 0);
        const next = random(seed * 31 + sender);
        const to: number[] = [];
        for (let m = 0; m < share; m++) {
          const r = (sender + 1 + Math.floor(next() * (entities - 1))) % entities;
          to.push(r);
          expect[r]!++;
        }
        receivers.push(to);
      }
      const handles = [];
      for (let i = 0; i < entities; i++) handles.push(await DBOS.startWorkflow(bigEntity, { workflowID: `${run}:big-${i}` })(run, receivers[i]!, expect[i]!));
      // Every entity exists now, so every send has its destination.
      const first = now();
      await DBOS.setEvent("start", true);
      const counts = await Promise.all(handles.map((h) => h.getResult()));
      return { entities, messages, delivered: counts.reduce((a, b) => a + b, 0), totalNs: since(first), handlerNs: since(start) };
    },
    { name: "microBig" },
  );

  const run = async <T>(started: Promise<{ getResult(): Promise<T> }>) => (await started).getResult();
  return {
    empty: () => run(DBOS.startWorkflow(empty)()),
    math: (_key, n) => run(DBOS.startWorkflow(math)(n)),
    sleep: (_key, ms) => run(DBOS.startWorkflow(sleep)(ms)),
    io: (key, bytes) => run(DBOS.startWorkflow(io)(key, bytes)),
    pingpong: ({ pairs, messages, bytes }) => run(DBOS.startWorkflow(pingpong)(pairs, messages, bytes)),
    divide: ({ items, fanout, leaf, seed }) => run(DBOS.startWorkflow(divide)(items, fanout, leaf, seed)),
    big: ({ entities, messages, seed }) => run(DBOS.startWorkflow(big)(entities, messages, seed)),
  };
}
