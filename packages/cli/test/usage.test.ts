import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { sfbench, sfbenchInProcess } from "./helpers.ts";

describe("sfbench usage errors", () => {
  // each row only reads its flags: the CLI's main in this process, as the shell would see it (help.test.ts starts the entry point)
  it.each([
    [["verify", "--bogus"], /^error: sfbench verify: unknown flag --bogus; allowed: --url, --target, --json, --only, --micro$/],
    [["verify"], /give exactly one of --url URL or --target NAME/],
    [["verify", "--url", "ftp://x"], /--url must be an http\(s\) URL/],
    [["verify", "--url", "not a url"], /--url must be an http\(s\) URL like/],
    [["verify", "--url"], /--url needs a value \(URL\)/],
    [["target", "up", "node-postgres", "--port", "80"], /--port must be an integer from 1024 to 65535, got "80"/],
    [["target", "up", "node-postgres", "--port", "abc"], /--port must be an integer from 1024 to 65535/],
    [["target", "sideways"], /unknown subcommand "sideways"; allowed: up, down, list/],
    [["services", "up", "mysql"], /a service must be one of postgres, redis, kafka, k6, got "mysql"/],
    [["frobnicate"], /unknown command "frobnicate"/],
  ])("sfbench %j exits 2 with a one-line message", async (args, message) => {
    const r = await sfbenchInProcess(args);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr.trim()).toMatch(message);
    expect(r.stderr).not.toMatch(/\s+at /);
  });

  it("an unknown target names the bundled ones", async () => {
    const r = await sfbench(["target", "up", "nope"]);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/unknown target "nope"; bundled targets: .*node-postgres/);
  });
});

describe("sfbench manifest check", () => {
  const dir = mkdtempSync(join(tmpdir(), "sfbench-manifest-"));
  const write = (name: string, body: unknown) => {
    const file = join(dir, name);
    writeFileSync(file, typeof body === "string" ? body : JSON.stringify(body));
    return file;
  };

  it("accepts the bundled node-postgres manifest", async () => {
    const r = await sfbench(["manifest", "check", new URL("../../targets/node-postgres/target.json", import.meta.url).pathname]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/valid \(node-postgres \d+\.\d+\.\d+, sha256:[0-9a-f]{64}\)/);
  });

  it("names the bad field and what is allowed, one line each", async () => {
    const file = write("bad.json", {
      name: "x",
      system: "X",
      version: "1.0.0",
      language: "cobol",
      guarantees: { consistency: "serializable", messaging: "synchronous", durability: "durable" },
      port: 8080,
      loc: { app: ["**/*.ts"] },
    });
    const r = await sfbench(["manifest", "check", file]);
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toMatch(/^.*bad\.json: language: Invalid option: .*\(allowed: one of typescript, javascript, java/);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
  });

  it("reports invalid JSON and a missing file without a stack trace", async () => {
    const r = await sfbench(["manifest", "check", write("broken.json", "{")]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/broken\.json: \(root\): not valid JSON/);
    const missing = await sfbench(["manifest", "check", join(dir, "missing.json")]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/cannot read .*missing\.json: ENOENT/);
  });
});
