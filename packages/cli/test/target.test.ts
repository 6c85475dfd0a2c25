/**
 * The bundled reference target through the CLI, on real PostgreSQL.
 */
import { describe, expect, it } from "vitest";
import { sfbench } from "./helpers.ts";

describe("sfbench with the bundled node-postgres target", () => {
  it("verify --target node-postgres --json passes at least 60 checks and leaves nothing running", async () => {
    const r = await sfbench(["verify", "--target", "node-postgres", "--json"]);
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout) as { passed: number; failed: number; checks: Array<{ id: string; passed: boolean }> };
    expect(report.checks.length).toBeGreaterThanOrEqual(60);
    expect(report.failed).toBe(0);
    expect(report.passed).toBe(report.checks.length);
    const list = await sfbench(["target", "list"]);
    expect(list.stdout).toMatch(/node-postgres\s+Node\.js \+ PostgreSQL\s+\d+\.\d+\.\d+\s+stopped/);
  });

  it("target up prints the URL, serves the API, refuses a second start, and target down stops it", async () => {
    const up = await sfbench(["target", "up", "node-postgres", "--port", "18123"]);
    expect(up.code, up.stderr).toBe(0);
    expect(up.stdout.trim()).toBe("http://127.0.0.1:18123");
    try {
      const health = await fetch("http://127.0.0.1:18123/health");
      expect(health.status).toBe(200);
      const again = await sfbench(["target", "up", "node-postgres", "--port", "18124"]);
      expect(again.code).toBe(3);
      expect(again.stderr).toMatch(/already running at http:\/\/127\.0\.0\.1:18123/);
      const verify = await sfbench(["verify", "--url", "http://127.0.0.1:18123", "--only", "checkout"]);
      expect(verify.code, verify.stdout).toBe(0);
    } finally {
      const down = await sfbench(["target", "down", "node-postgres"]);
      expect(down.code).toBe(0);
      expect(down.stderr).toMatch(/node-postgres stopped/);
    }
    await expect(fetch("http://127.0.0.1:18123/health")).rejects.toThrow();
    const downAgain = await sfbench(["target", "down", "node-postgres"]);
    expect(downAgain.stderr).toMatch(/was not running/);
  });

  it("refuses a port that is in use", async () => {
    const { createServer } = await import("node:net");
    const srv = createServer().listen(18125, "127.0.0.1");
    await new Promise((r) => srv.once("listening", r));
    try {
      const r = await sfbench(["target", "up", "node-postgres", "--port", "18125"]);
      expect(r.code).toBe(3);
      expect(r.stderr.trim()).toBe("error: port 18125 on 127.0.0.1 is in use; choose another with --port");
    } finally {
      srv.close();
    }
  });
});
