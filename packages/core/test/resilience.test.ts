import { describe, expect, it } from "vitest";
import { manifestDigest, parseManifest } from "../src/manifest.ts";
import { experimentSupport, FaultResult, nodeSupport, ResilienceResults, ScalabilityResult } from "../src/resilience.ts";

const valid = {
  name: "demo",
  system: "Demo",
  version: "1.0.0",
  language: "typescript",
  guarantees: { consistency: "serializable", messaging: "synchronous", durability: "durable" },
  port: 8080,
  local: { command: ["node", "server.js"], startupTimeoutSeconds: 45 },
  services: ["postgres"],
  loc: { app: ["src/**/*.ts"] },
};

const parse = (m: unknown) => {
  const r = parseManifest(m);
  if (!r.ok) throw new Error(r.errors.join("\n"));
  return r.manifest;
};
const errorsOf = (m: unknown) => {
  const r = parseManifest(m);
  if (r.ok) throw new Error("expected an invalid manifest");
  return r.errors;
};

describe("the nodes and restart fields of target.json", () => {
  it("are optional and fill nothing in, so the digest of a manifest without them stays what it was", () => {
    const m = parse(valid);
    expect(m).not.toHaveProperty("nodes");
    expect(m).not.toHaveProperty("restart");
    // the digest of this exact manifest under the schema before the fields existed (commit 3971f49)
    expect(manifestDigest(m)).toBe("sha256:4bc106d292ecdcda2fe17fc4e26ed6a2d52ba5b5409b021711b2b593bbf4eb02");
    expect(Object.keys(m).sort()).toEqual(["guarantees", "health", "language", "loc", "local", "name", "port", "services", "system", "tracing", "version"]);
  });

  it("a manifest without them is one process that restarts within its startup timeout", () => {
    expect(nodeSupport(parse(valid))).toEqual({ max: 1, routing: "balancer", memberCommand: undefined, elastic: false, restartTimeoutSeconds: 45 });
  });

  it("resolves a declared multi-node target", () => {
    const m = parse({ ...valid, nodes: { max: 4, routing: "self", command: ["node", "member.js"], elastic: true }, restart: { timeoutSeconds: 300 } });
    expect(nodeSupport(m)).toEqual({ max: 4, routing: "self", memberCommand: ["node", "member.js"], elastic: true, restartTimeoutSeconds: 300 });
    expect(parse({ ...valid, nodes: { max: 2 } }).nodes).toEqual({ max: 2 });
  });

  it("names the field and what is allowed when a declaration is wrong", () => {
    expect(errorsOf({ ...valid, nodes: { max: 1 } })[0]).toMatch(/^nodes\.max: .*>=2.*\(allowed: \{"max": 4, "routing": "balancer"\|"self"/);
    expect(errorsOf({ ...valid, nodes: { max: 3, routing: "dns" } })[0]).toMatch(/^nodes\.routing: .*"balancer"\|"self"/);
    expect(errorsOf({ ...valid, nodes: { max: 3, replicas: 2 } })[0]).toMatch(/^nodes\.replicas: unknown field/);
    expect(errorsOf({ ...valid, restart: { timeoutSeconds: 0 } })[0]).toMatch(/^restart\.timeoutSeconds: .*\(allowed: \{"timeoutSeconds": 300\}/);
    expect(errorsOf({ ...valid, restrat: {} })[0]).toContain('restrat: unknown field (did you mean "restart"?)');
  });
});

describe("which resilience experiments a target supports", () => {
  it("every local target can be killed and restarted; only declared nodes scale", () => {
    const single = experimentSupport(parse(valid));
    expect(single.fault).toEqual({ supported: true });
    expect(single.recovery).toEqual({ supported: true });
    expect(single["scale-up"]).toEqual({ supported: false, reason: "single-process target (target.json declares no nodes)" });
    expect(single.scalability).toEqual({ supported: false, reason: "single-process target (target.json declares no nodes)" });
    const fixed = experimentSupport(parse({ ...valid, nodes: { max: 4 } }));
    expect(fixed.scalability).toEqual({ supported: true });
    expect(fixed["scale-up"]).toEqual({ supported: false, reason: "nodes cannot join a running target (target.json nodes.elastic is not true)" });
    expect(experimentSupport(parse({ ...valid, nodes: { max: 4, elastic: true } }))["scale-up"]).toEqual({ supported: true });
  });

  it("a manifest without a local command supports none locally", () => {
    const { local: _l, ...noLocal } = valid;
    const s = experimentSupport(parse(noLocal));
    for (const e of Object.values(s)) expect(e).toEqual({ supported: false, reason: "the manifest has no local start command" });
  });
});

describe("the resilience result schemas", () => {
  const fault = {
    kill: { node: 0, nodes: 1, signal: "SIGKILL", atS: 30.2, restarted: true, restartHealthyAfterS: 1.4 },
    offeredRate: 50,
    baselineRate: 49.5,
    baselineSeconds: 30,
    errorWindow: { startS: 0.01, endS: 1.5, durationS: 1.49 },
    recoveredAfterS: 3,
    tolerance: 0.1,
    sustainS: 3,
    lost: 12,
    failed: 3,
    dropped: 0,
    missingSuccessful: 80,
    minRate: 0,
    baselineP99Ms: 20,
    peakP99Ms: 900,
  };

  it("accept a complete fault result and refuse a negative count, naming the field", () => {
    expect(FaultResult.parse(fault)).toEqual(fault);
    const r = FaultResult.safeParse({ ...fault, lost: -1 });
    expect(r.success).toBe(false);
    expect(r.error?.issues[0]?.path).toEqual(["lost"]);
  });

  it("list unsupported experiments with their reason instead of dropping them", () => {
    const r = ResilienceResults.parse({ fault, unsupported: [{ experiment: "scale-up", reason: "single-process target" }] });
    expect(r.unsupported).toEqual([{ experiment: "scale-up", reason: "single-process target" }]);
    expect(ResilienceResults.safeParse({ unsupported: [{ experiment: "chaos", reason: "x" }] }).success).toBe(false);
  });

  it("scalability points carry their environment and routing", () => {
    const doc = { environment: "local", routing: "balancer", points: [{ nodes: 1, maxThroughput: 100, sustainableRate: 90, speedup: 1, efficiency: 1 }] };
    expect(ScalabilityResult.parse(doc)).toEqual(doc);
    expect(ScalabilityResult.safeParse({ ...doc, points: [] }).success).toBe(false);
  });
});
