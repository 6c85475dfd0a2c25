import { afterEach, describe, expect, it, vi } from "vitest";
import { cellLabel, LiveLine } from "../src/live.ts";

describe("sfbench run's progress lines", () => {
  afterEach(() => vi.restoreAllMocks());

  it("name the cell each line is about: one cell, the analytics cells, or all of them", () => {
    expect(cellLabel("checkout/zipf")).toBe("checkout/zipf");
    expect(cellLabel("analytics")).toBe("analytics/*");
    expect(cellLabel("-")).toBe("all cells");
  });

  it("start every line with the cell when stderr is not a terminal", () => {
    const lines: string[] = [];
    vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => lines.push(String(chunk)) > 0);
    const tty = Object.getOwnPropertyDescriptor(process.stderr, "isTTY");
    Object.defineProperty(process.stderr, "isTTY", { value: false, configurable: true });
    const live = new LiveLine();
    if (tty) Object.defineProperty(process.stderr, "isTTY", tty);
    else delete (process.stderr as { isTTY?: boolean }).isTTY;
    live.update({ cell: "-", phase: "seed", detail: "5000 products" });
    live.update({ cell: "checkout/uniform", phase: "ramp", detail: "step 1", offeredRate: 40 });
    live.update({ cell: "checkout/uniform", phase: "ramp", detail: "step 1", offeredRate: 40 });
    live.update({ cell: "analytics", phase: "populate", detail: "20000 checkouts" });
    live.update({ cell: "analytics/zipf", phase: "trace", detail: "no breakdown for this cell", note: true });
    expect(lines).toEqual([
      "[all cells] seed: 5000 products\n",
      "[checkout/uniform] ramp: step 1\n",
      "[analytics/*] populate: 20000 checkouts\n",
      "[analytics/zipf] trace: no breakdown for this cell\n",
    ]);
  });
});
