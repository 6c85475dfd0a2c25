/**
 * The portal refuses to listen anywhere but on loopback without
 * SFBENCH_PUBLIC_ORIGIN: `npm run serve` before it starts anything (so no
 * off-loopback listen happens), `next start` run by hand from
 * instrumentation.ts, which reads next's command line.
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isLoopback, listenProblem, nextStartHostname } from "../src/server/listen-check.ts";

const NEXT = "/app/node_modules/next/dist/bin/next";

describe("where the portal may listen", () => {
  it("knows loopback addresses from the others", () => {
    for (const host of ["127.0.0.1", "127.1.2.3", "::1", "[::1]", "localhost", "::ffff:127.0.0.1"]) expect(isLoopback(host), host).toBe(true);
    for (const host of ["0.0.0.0", "::", "[::]", "10.0.0.5", "192.168.1.2", "sfbench.example.org", "128.0.0.1", "localhost.example.org"])
      expect(isLoopback(host), host).toBe(false);
  });

  it("refuses every other address, and next start's default, until SFBENCH_PUBLIC_ORIGIN is set", () => {
    expect(listenProblem("127.0.0.1", [])).toBeUndefined();
    expect(listenProblem("0.0.0.0", [])).toBe(
      "refusing to listen on 0.0.0.0 without SFBENCH_PUBLIC_ORIGIN: set it to the origin people reach this portal at (e.g. SFBENCH_PUBLIC_ORIGIN=https://sfbench.example.org), or listen on 127.0.0.1",
    );
    expect(listenProblem(undefined, [])).toMatch(/^refusing to listen on every interface \(next start without --hostname\) without SFBENCH_PUBLIC_ORIGIN: /);
    expect(listenProblem("0.0.0.0", ["https://sfbench.example.org"])).toBeUndefined();
    expect(listenProblem(undefined, ["https://sfbench.example.org"])).toBeUndefined();
  });

  it("reads the hostname from next start's command line in each form commander takes, the last one counting", () => {
    expect(nextStartHostname(["node", NEXT, "start", "--hostname", "127.0.0.1", "--port", "3000"])).toBe("127.0.0.1");
    expect(nextStartHostname(["node", "/app/node_modules/.bin/next", "start", "-H", "0.0.0.0"])).toBe("0.0.0.0");
    expect(nextStartHostname(["node", NEXT, "start", "--hostname=10.0.0.5"])).toBe("10.0.0.5");
    expect(nextStartHostname(["node", NEXT, "start", "-H0.0.0.0"])).toBe("0.0.0.0");
    expect(nextStartHostname(["node", NEXT, "start", "--hostname", "127.0.0.1", "--hostname", "0.0.0.0"])).toBe("0.0.0.0");
    expect(nextStartHostname(["node", NEXT, "start", "--port", "3000"])).toBeUndefined();
    expect(nextStartHostname(["node", "/app/node_modules/next/dist/server/lib/start-server.js"])).toBe("not next start");
    expect(nextStartHostname(["node", "/app/scripts/start.ts", "start", "-H", "0.0.0.0"])).toBe("not next start");
  });

  it("npm run serve on 0.0.0.0 without SFBENCH_PUBLIC_ORIGIN exits before it starts anything, naming the variable", () => {
    const env = { ...process.env };
    delete env.SFBENCH_PUBLIC_ORIGIN;
    const r = spawnSync(process.execPath, ["--import", "tsx", join(import.meta.dirname, "../scripts/serve.ts"), "--hostname", "0.0.0.0", "--port", "3999"], {
      env,
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(r.status).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr.trim().split("\n")).toEqual([
      "serve: refusing to listen on 0.0.0.0 without SFBENCH_PUBLIC_ORIGIN: set it to the origin people reach this portal at (e.g. SFBENCH_PUBLIC_ORIGIN=https://sfbench.example.org), or listen on 127.0.0.1",
    ]);
  });
});
