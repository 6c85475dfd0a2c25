/**
 * A portal stand-in that speaks tRPC's HTTP shape and the upload endpoint on
 * loopback, so that every outcome of a run (completed, failed, interrupted)
 * is cheap to reach: tokens sfb_completes, sfb_fails and sfb_interrupted are
 * valid and choose how the run ends.
 */
import { randomUUID } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export type Ending = "completed" | "failed" | "interrupted";
export interface FakeRun {
  ending: Ending;
  polls: number;
}

/** Each poll of runs.progress moves a run one step along this path. */
const PATH = [
  { status: "queued", stage: null, progress: 0 },
  { status: "running", stage: "provision", progress: 1 },
  { status: "running", stage: "verify", progress: 5 },
  { status: "running", stage: "verify", progress: 8 },
  { status: "running", stage: "load", progress: 40 },
  { status: "running", stage: "load", progress: 60 },
] as const;

const cell = {
  workload: "checkout",
  distribution: "zipf",
  valid: true,
  maxThroughput: {
    sustainableRate: 480,
    maxMovingAvg10s: 455.5,
    knee: { stoppedBecause: "resolution-reached", firstUnsustainableRate: 509, resolution: 0.06, targetResolution: 0.1 },
  },
  stable: { offeredRate: 384, achievedRate: 383.2, errorRate: 0, latency: { p50: 2.25, p99: 9.5 } },
  cost: { coreSecondsPer1000: 1.75 },
  anomalies: { total: 0 },
};

/** A failed run's reason ends with the target's log tail, which its team wrote: here escapes that retitle the window and clear the screen. */
const HOSTILE_TAIL = "\u001b]0;owned\u0007\u001b[2J\u009b31m\u202eevil";
const errorOf = (ending: Ending) =>
  ending === "failed" ? `the target exited with code 1; last log line: ${HOSTILE_TAIL}` : "interrupted during load: the worker was stopped (SIGTERM)";

function document(id: string, ending: Ending) {
  const base = { runId: id, target: { name: "node-postgres", version: "0.1.0" }, profile: "standard", status: ending };
  return ending === "completed" ? { ...base, cells: [cell] } : { ...base, cells: [], error: { stage: "load", message: errorOf(ending) } };
}

/** A portal stand-in: tokens sfb_completes, sfb_fails, sfb_interrupted are valid and choose how the run ends. */
const VALID_TOKENS = ["sfb_completes", "sfb_fails", "sfb_interrupted"];

export function startPortal(): Promise<{
  url: string;
  runs: Map<string, FakeRun>;
  uploads: Map<string, { kind: string; size: number }>;
  submitted: Record<string, unknown>[];
  close: () => Promise<void>;
}> {
  const runs = new Map<string, FakeRun>();
  const uploads = new Map<string, { kind: string; size: number }>();
  const submitted: Record<string, unknown>[] = [];
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url!, "http://x");
    const send = (status: number, body: unknown) => res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
    const error = (httpStatus: number, message: string) => send(httpStatus, { error: { message, code: -32001, data: { httpStatus, fields: null } } });
    const token = /^Bearer (\S+)$/.exec(req.headers.authorization ?? "")?.[1];
    const kind = /^\/api\/uploads\/([a-z-]+)$/.exec(url.pathname)?.[1];
    if (kind) {
      if (!token || !VALID_TOKENS.includes(token))
        return send(401, { error: { message: "sign in (or send Authorization: Bearer <API token>) to upload", field: "authorization" } });
      let size = 0;
      req.on("data", (d: Buffer) => (size += d.length));
      req.on("end", () => {
        const id = randomUUID();
        uploads.set(id, { kind, size });
        send(201, { id, sha256: `sha256:${"0".repeat(64)}`, size, references: [] });
      });
      return;
    }
    const procedure = url.pathname.replace("/api/trpc/", "");
    if (procedure === "auth.me") return send(200, { result: { data: token && VALID_TOKENS.includes(token) ? { email: "team@example.com" } : null } });
    const input = JSON.parse(url.searchParams.get("input") ?? "{}") as { id?: string };
    if (procedure === "submissions.submit") {
      let body = "";
      req.on("data", (d: Buffer) => (body += d));
      req.on("end", () => submitted.push(JSON.parse(body) as Record<string, unknown>));
      const ending = token?.replace(/^sfb_/, "");
      if (ending !== "completes" && ending !== "fails" && ending !== "interrupted")
        return error(401, "sign in (or send Authorization: Bearer <API token>) to do this");
      const runId = randomUUID();
      runs.set(runId, { ending: ending === "completes" ? "completed" : ending === "fails" ? "failed" : "interrupted", polls: 0 });
      return send(200, { result: { data: { runId, systemSlug: "node-postgres" } } });
    }
    const run = input.id ? runs.get(input.id) : undefined;
    if (!run) return error(404, `no run ${input.id}`);
    if (procedure === "runs.progress") {
      const step = PATH[run.polls++];
      const finished = {
        status: run.ending,
        stage: null,
        progress: 100,
        errorStage: run.ending === "completed" ? null : "load",
        errorMessage: run.ending === "completed" ? null : errorOf(run.ending),
      };
      return send(200, { result: { data: { id: input.id, errorStage: null, errorMessage: null, ...(step ?? finished) } } });
    }
    if (procedure === "runs.byId") return send(200, { result: { data: { id: input.id, document: document(input.id!, run.ending) } } });
    return error(404, `no procedure ${procedure}`);
  });
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo;
      resolve({ url: `http://127.0.0.1:${port}`, runs, uploads, submitted, close: () => new Promise((r) => server.close(() => r())) });
    });
  });
}
