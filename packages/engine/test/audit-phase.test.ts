/**
 * The audit phase when its reads cannot be sent at all (the target's socket
 * is gone): the run fails in stage "audit", and when the target died under
 * the reads, the reason is the target's exit (seen a moment later), not the
 * read's "fetch failed".
 */
import { createServer } from "node:net";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { audit } from "../src/experiment/phases/audit.ts";
import { aliveCheck, StageError, type RunContext } from "../src/experiment/phase.ts";
import type { CheckoutRecord } from "../src/audit/records.ts";

/** A loopback port that nothing listens on. */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const { port } = s.address() as AddressInfo;
  await new Promise((r) => s.close(r));
  return port;
}

const record: CheckoutRecord = {
  sfbench: "audit",
  kind: "checkout",
  user: "u1",
  credits: 100,
  cart: "c1",
  items: [["p1", 1]],
  status: 200,
  orderId: "o1",
  total: 10,
};

async function runAudit(checkAlive: RunContext["checkAlive"]): Promise<StageError> {
  const ctx = {
    baseUrl: `http://127.0.0.1:${await closedPort()}`,
    checkAlive,
    onProgress: () => undefined,
    allCheckouts: [],
    prices: new Map([["p1", 10]]),
    settings: { auditSample: 100, coPurchaseSample: 10, quietMs: 0 },
  } as unknown as RunContext;
  const state = {
    stock: { scope: ["p1"], before: new Map([["p1", 5]]) },
    ramp: { steps: [] },
    stable: { outcome: { checkouts: [record], stockAdded: new Map() } },
  };
  const e = await audit.run(ctx, { workload: "checkout", distribution: "uniform" } as never, state as never).then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(StageError);
  return e as StageError;
}

describe("the audit phase when the target is unreachable", () => {
  it("names the target's exit when the target died, even when its exit is seen only after the failed read", async () => {
    let calls = 0;
    const e = await runAudit(aliveCheck(() => (++calls > 3 ? "code 1" : undefined)));
    expect(e.stage).toBe("audit");
    expect(e.message).toBe("target exited with code 1 during audit");
  });

  it("fails in stage audit with the read's error when the target is still alive", async () => {
    const e = await runAudit(() => undefined);
    expect(e.stage).toBe("audit");
    expect(e.message).toMatch(/^audit: fetch failed/);
  });
});
