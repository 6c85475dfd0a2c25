/**
 * /proc stat lines as sfbench reads them to tell whether a process is gone:
 * the command between parentheses may hold spaces and parentheses itself.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { exited, isAlive, statFields, threadsLeft } from "../src/process.ts";

describe("statFields", () => {
  it("reads state, ppid and pgrp after the last parenthesis of the command", () => {
    expect(statFields("4242 (java (main) x) Z 17 4242 4242 0 -1 4194560 1 0")).toEqual({ state: "Z", ppid: 17, pgrp: 4242 });
    expect(statFields("7 (node) S 1 7 7 0 -1")).toEqual({ state: "S", ppid: 1, pgrp: 7 });
  });

  it("agrees with the kernel about this process", () => {
    const own = statFields(readFileSync("/proc/self/stat", "utf8"));
    expect(own.ppid).toBe(process.ppid);
    expect(own.state).toBe("R");
    expect(exited(own.state)).toBe(false);
  });

  it("counts zombie and dead tasks as exited, and no other state", () => {
    expect(["Z", "X"].map(exited)).toEqual([true, true]);
    expect(["R", "S", "D", "T", "t", "I"].map(exited)).toEqual([false, false, false, false, false, false]);
  });
});

describe("a process that is not there", () => {
  it("has no thread left and is not alive", () => {
    // pid_max is at most 2^22: this pid cannot exist
    expect(threadsLeft(2 ** 22 + 1)).toBe(false);
    expect(isAlive(2 ** 22 + 1)).toBe(false);
  });

  it("this process has threads left", () => {
    expect(threadsLeft(process.pid)).toBe(true);
  });
});
