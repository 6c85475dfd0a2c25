/** What the demo says of a system whose trials are in (scripts/lib/demo-verdict.ts): the cells' verdicts, not the count of completed runs. */
import { describe, expect, it } from "vitest";
import type { ResultDocument } from "@sfbench/core";
import { systemVerdict } from "../../../scripts/lib/demo-verdict.ts";

type CellOf = ResultDocument["cells"][number];
const cell = (workload: string, verdict: "ranked" | "invalid" | "knee") => ({ workload, distribution: "uniform", verdict }) as unknown as CellOf;
const doc = (...cells: CellOf[]) => ({ cells });
/** the verdicts as core's judgeCell words them, chosen by the test's cell */
const judge = (c: CellOf) => {
  const v = (c as unknown as { verdict: string }).verdict;
  if (v === "ranked") return { invalidReason: null, rank: { ok: true as const, resolution: 0.09 } };
  if (v === "invalid")
    return {
      invalidReason: "ramp step at 200/s: 26% of iterations were dropped",
      rank: { ok: false as const, because: "invalid" as const, reason: "the cell is invalid" },
    };
  return { invalidReason: null, rank: { ok: false as const, because: "knee" as const, reason: "the knee is known only to 200%" } };
};

describe("the demo's verdict on a system", () => {
  it("says ranked only for a cell with two ranked trials", () => {
    expect(systemVerdict([doc(cell("checkout", "ranked")), doc(cell("checkout", "ranked"))], judge)).toBe(
      "checkout/uniform 2 of 2 trials ranked, median and interval ranked",
    );
  });

  it("says why completed trials are not ranked, with the invalid cell's own reason", () => {
    expect(systemVerdict([doc(cell("checkout", "invalid")), doc(cell("checkout", "ranked"))], judge)).toBe(
      "checkout/uniform 1 of 2 trials ranked, one ranked trial: provisional (1 unranked: ramp step at 200/s: 26% of iterations were dropped)",
    );
    expect(systemVerdict([doc(cell("checkout", "knee"), cell("analytics", "ranked")), doc(cell("checkout", "knee"), cell("analytics", "ranked"))], judge)).toBe(
      "checkout/uniform 0 of 2 trials ranked, not ranked (2 unranked: the knee is known only to 200%); analytics/uniform 2 of 2 trials ranked, median and interval ranked",
    );
  });

  it("says there is nothing on the board without a completed trial", () => {
    expect(systemVerdict([], judge)).toBe("no completed trial: nothing on the board");
  });
});
