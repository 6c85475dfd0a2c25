/**
 * A podman that does not finish within its time is killed, not left waiting:
 * a podman stuck on one of its locks ignores SIGTERM until it gets the lock,
 * and only its death frees the locks it holds. The podman here is a stand-in
 * on PATH that ignores SIGTERM and would sleep for a minute.
 */
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { isAlive } from "@sfbench/provider-local";
import { podman } from "../src/podman.ts";

const bin = mkdtempSync(join(tmpdir(), "sfbench-stuck-podman-"));
const pidFile = join(bin, "pid");
writeFileSync(join(bin, "podman"), `#!/bin/sh\ntrap '' TERM\necho $$ > ${pidFile}\nexec sleep 60\n`);
chmodSync(join(bin, "podman"), 0o755);
const path = process.env.PATH;
process.env.PATH = `${bin}:${path}`;

afterAll(() => {
  process.env.PATH = path;
  rmSync(bin, { recursive: true, force: true });
});

describe("podman past its time", () => {
  it("is killed even when it ignores SIGTERM, and the call says which command and after how long", async () => {
    await expect(podman(["kube", "play", "--network", "n", "run.yaml"], { timeoutMs: 1000 })).rejects.toThrow(
      /^podman kube play --network did not finish within 1 s and was killed$/,
    );
    const pid = Number(readFileSync(pidFile, "utf8"));
    expect(pid).toBeGreaterThan(0);
    expect(isAlive(pid)).toBe(false);
  });
});
