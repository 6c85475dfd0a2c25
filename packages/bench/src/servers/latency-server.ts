/**
 * The calibration target of the fidelity benchmark: answers every request
 * after a delay drawn from a known distribution (lib/injected.ts), measured
 * from the moment the request's headers were parsed to the moment the answer
 * was handed to the socket.
 *
 *   node --import tsx bench/servers/latency-server.ts [--port N] [--base-ms 5] [--mean-ms 5]
 *        [--sequence quasi|random] [--seed 1] [--lead-ms 3]
 *
 * Precision: a timer wakes the request lead-ms before its deadline, then it
 * spins on setImmediate, comparing performance.now() with the deadline, so a
 * late timer (timers have 1 ms granularity, fire from a cached loop time, and
 * a VM's idle core takes a while to wake) does not show up as injected
 * latency. The spinning costs about lead-ms x rate of a core: run the server
 * on a core of its own.
 *
 * Every request (any method and path but /__*) answers 200 with
 * {"orderId":"calibration","total":1}. GET /__stats answers what was
 * injected since the last POST /__reset: {"count", "targetMs": [...],
 * "actualMs": [...], "writeMs": [...]}, one entry per answered request, in
 * answer order: the drawn delay, the delay the server kept (headers parsed
 * -> answer started), and how long handing the answer to the socket took
 * (on loopback the kernel delivers it to the client within that call).
 * Prints {"port": N} when it listens; stops on SIGTERM.
 */
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { parseArgs } from "node:util";
import { delaySource, type Sequence } from "../lib/injected.ts";

const { values } = parseArgs({
  options: {
    port: { type: "string", default: "0" },
    "base-ms": { type: "string", default: "5" },
    "mean-ms": { type: "string", default: "5" },
    sequence: { type: "string", default: "quasi" },
    seed: { type: "string", default: "1" },
    "lead-ms": { type: "string", default: "3" },
  },
});
const sequence = values.sequence as Sequence;
if (sequence !== "quasi" && sequence !== "random") throw new Error(`--sequence must be quasi or random, got ${values.sequence}`);
const nextDelay = delaySource({ baseMs: Number(values["base-ms"]), meanMs: Number(values["mean-ms"]) }, sequence, Number(values.seed));
const leadMs = Number(values["lead-ms"]);
const BODY = JSON.stringify({ orderId: "calibration", total: 1 });

/** the drawn delay; from the request's headers to the answer's start; how long handing the answer to the socket took */
let targetMs: number[] = [];
let actualMs: number[] = [];
let writeMs: number[] = [];

function answer(res: ServerResponse, startedMs: number, delayMs: number, answerMs: number): void {
  res.writeHead(200, { "content-type": "application/json", "content-length": String(Buffer.byteLength(BODY)) }).end(BODY);
  targetMs.push(delayMs);
  actualMs.push(answerMs - startedMs);
  writeMs.push(performance.now() - answerMs);
}

const server = createServer((req, res) => {
  const startedMs = performance.now();
  req.resume(); // the body is not read
  if (req.url === "/__stats") {
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ count: actualMs.length, targetMs, actualMs, writeMs }));
    return;
  }
  if (req.url === "/__reset") {
    [targetMs, actualMs, writeMs] = [[], [], []];
    res.writeHead(200).end();
    return;
  }
  const delayMs = nextDelay();
  const deadline = startedMs + delayMs;
  const spin = () => {
    const now = performance.now();
    if (now >= deadline) answer(res, startedMs, delayMs, now);
    else setImmediate(spin);
  };
  const sleepMs = deadline - leadMs - performance.now();
  if (sleepMs > 0) setTimeout(spin, sleepMs);
  else spin();
});
server.keepAliveTimeout = 120_000;
server.headersTimeout = 125_000;
server.listen(Number(values.port), "127.0.0.1", () => {
  process.stdout.write(JSON.stringify({ port: (server.address() as AddressInfo).port }) + "\n");
});
process.on("SIGTERM", () => process.exit(0));
