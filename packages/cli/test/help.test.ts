/**
 * Every command answers --help and -h with its flags and an example, exit 0,
 * and the flags its help lists are exactly the ones its parser accepts (the
 * "allowed:" list of an unknown-flag error). The commands' help is read from
 * the CLI's `main` in this process; the entry point itself is started for the
 * top-level help and an unknown command (what a shell sees: the exit codes),
 * and for `run --help`, which loads only what a run on this machine needs
 * (scripts/lib/record-imports.mjs lists what it loaded).
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { COMMAND_HELP, GROUPS } from "../src/usage.ts";
import { sfbench, sfbenchInProcess } from "./helpers.ts";

const flagsInHelp = (help: string) =>
  help
    .split("\n")
    .filter((l) => /^ {2}--/.test(l) && !l.startsWith("  --help"))
    .map((l) => l.trim().split(/\s/)[0]!);

describe("sfbench <command> --help", () => {
  it.each(Object.keys(COMMAND_HELP))("%s --help and -h print the usage, the flags and an example", async (command) => {
    const words = command.split(" ").slice(1);
    const long = await sfbenchInProcess([...words, "--help"]);
    const short = await sfbenchInProcess([...words, "-h"]);
    const refused = await sfbenchInProcess([...words, "--not-a-flag"]);
    expect(long.code, long.stderr).toBe(0);
    expect(long.stdout).toMatch(new RegExp(`^usage: sfbench ${words.join(" ")}`));
    expect(long.stdout).toContain(`example:\n  sfbench ${words.join(" ")}`);
    expect(short.code).toBe(0);
    expect(short.stdout).toBe(long.stdout);

    expect(refused.code).toBe(2);
    const allowed = /allowed: (.*)$/.exec(refused.stderr.trim())?.[1];
    expect(allowed === "(none)" ? [] : allowed?.split(", ")).toEqual(flagsInHelp(long.stdout));
  });

  it("every top-level command has help, and sfbench --help lists them all", async () => {
    const top = await sfbench(["--help"]);
    expect(top.code).toBe(0);
    const unknown = await sfbench(["frobnicate"]);
    expect(unknown.code).toBe(2);
    const all = /allowed: ([^(]*) \(/.exec(unknown.stderr)![1]!.split(", ");
    for (const command of all) expect(top.stdout, command).toMatch(new RegExp(`^  sfbench ${command}\\b`, "m"));
  });

  it.each(Object.keys(GROUPS))("sfbench %s --help lists its subcommands", async (group) => {
    const r = await sfbenchInProcess([group, "--help"]);
    expect(r.code).toBe(0);
    for (const sub of GROUPS[group]!) expect(r.stdout).toMatch(new RegExp(`^  sfbench ${group} ${sub}\\b`, "m"));
  });

  it("sfbench run --help loads neither the cluster program's provider nor Pulumi's SDK: every run and campaign starts up without them", async () => {
    const log = join(mkdtempSync(join(tmpdir(), "sfbench-imports-")), "imports.log");
    const recorder = fileURLToPath(new URL("../../../scripts/lib/record-imports.mjs", import.meta.url));
    const r = await sfbench(["run", "--help"], { SFBENCH_IMPORTS_LOG: log, NODE_OPTIONS: `--import ${recorder}` });
    expect(r.code, r.stderr).toBe(0);
    const loaded = readFileSync(log, "utf8").split("\n");
    // the recorder sees the run command's own graph (the harness is in it)...
    expect(loaded.some((url) => url.includes("/packages/engine/src/"))).toBe(true);
    // ...and nothing of the cluster program, which only --kube-play needs
    expect(loaded.filter((url) => url.includes("/node_modules/@pulumi/") || url.includes("/packages/providers/kubernetes/"))).toEqual([]);
  });
});
