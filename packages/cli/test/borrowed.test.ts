/**
 * What a command borrows it borrows once, however many trials need it, and
 * gives back when it ends; a failed start is tried again by the next trial.
 * The services are a fake here; services' own tests borrow a real Kafka.
 */
import { beforeEach, describe, expect, it, vi } from "vitest";

const log: string[] = [];
let failNext = false;

vi.mock("@sfbench/services", () => ({
  borrow: async (name: string) => {
    if (failNext) {
      failNext = false;
      throw new Error("Kafka is not available");
    }
    log.push(`borrow ${name}`);
    return { name, started: true, release: async () => void log.push(`release ${name}`) };
  },
}));

const { borrowForCommand, returnBorrowed } = await import("../src/borrowed.ts");

beforeEach(() => {
  log.length = 0;
});

describe("the servers a command borrows", () => {
  it("are borrowed once for all trials and given back once when the command ends", async () => {
    for (let trial = 0; trial < 3; trial++) await borrowForCommand("kafka", () => undefined);
    expect(log).toEqual(["borrow kafka"]);
    await returnBorrowed();
    await returnBorrowed();
    expect(log).toEqual(["borrow kafka", "release kafka"]);
  });

  it("are tried again by the next trial when a start failed", async () => {
    failNext = true;
    await expect(borrowForCommand("kafka", () => undefined)).rejects.toThrow("Kafka is not available");
    await borrowForCommand("kafka", () => undefined);
    await returnBorrowed();
    expect(log).toEqual(["borrow kafka", "release kafka"]);
  });
});
