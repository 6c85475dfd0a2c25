/**
 * PyPI tools in venvs under .sfbench/python: installed once by the project's
 * own code (never by hand), pinned, reused, and redone when an install was
 * interrupted.
 */
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { MissingPrerequisiteError, pythonToolDir, pythonToolPath, SCHEMATHESIS, schemathesisPath } from "../src/index.ts";

describe("python tools", () => {
  it("installs the pinned schemathesis into its own venv and reuses it", async () => {
    const bin = await schemathesisPath();
    expect(bin).toBe(join(pythonToolDir(SCHEMATHESIS), "bin", "schemathesis"));
    const { stdout } = await promisify(execFile)(bin, ["--version"]);
    expect(stdout).toContain(`version ${SCHEMATHESIS.version}`);
    const marker = join(pythonToolDir(SCHEMATHESIS), ".sfbench-installed");
    const installedAt = statSync(marker).mtimeMs;
    expect(await schemathesisPath()).toBe(bin);
    expect(statSync(marker).mtimeMs).toBe(installedAt);
  }, 600_000);

  it("says what to install when python3 is missing", async () => {
    const root = mkdtempSync(join(tmpdir(), "sfbench-python-"));
    const attempt = pythonToolPath(SCHEMATHESIS, { root, pathEnv: "" });
    await expect(attempt).rejects.toBeInstanceOf(MissingPrerequisiteError);
    await expect(attempt).rejects.toThrow(
      /schemathesis needs python3 with venv \(python3 is not installed\): run `sudo apt-get install -y python3 python3-venv`/,
    );
  });

  it("does not use a venv whose install never finished (no marker)", async () => {
    const root = mkdtempSync(join(tmpdir(), "sfbench-python-"));
    const half = join(pythonToolDir(SCHEMATHESIS, root), "bin");
    mkdirSync(half, { recursive: true });
    writeFileSync(join(half, "schemathesis"), "#!/bin/sh\n", { mode: 0o755 });
    // it starts over (and, with no python3 on this PATH, says so) instead of returning the half venv
    await expect(pythonToolPath(SCHEMATHESIS, { root, pathEnv: "" })).rejects.toThrow(/needs python3 with venv/);
  });
});
