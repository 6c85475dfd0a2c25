/** Snapshot: the stock of the products a workload's audit checks, read before any load of the cell. */
import type { Workload } from "@sfbench/core";
import { snapshotStock } from "../../audit/audit.ts";
import { hotProductId, productId, soldOutProductId } from "@sfbench/workloads";
import { progress, type Phase, type RunContext } from "../phase.ts";

declare module "../phase.ts" {
  interface CellState {
    /** the products whose stock the audit checks, and their stock before the cell's load */
    stock?: { scope: string[]; before: Map<string, number> };
  }
}

/** The products whose stock the audit checks for a workload. */
export function stockScope(ctx: RunContext, workload: Workload): string[] {
  if (workload === "contention") return [...Array.from({ length: 10 }, (_, i) => hotProductId(ctx.productPrefix, i)), soldOutProductId(ctx.productPrefix)];
  if (workload === "checkout") return Array.from({ length: ctx.settings.products }, (_, i) => productId(ctx.productPrefix, i));
  return [];
}

export const snapshot: Phase = {
  name: "snapshot",
  needs: [],
  adds: ["stock"],
  async run(ctx, cell) {
    const scope = stockScope(ctx, cell.workload);
    progress(ctx, cell, "snapshot", `reading the stock of ${scope.length} products before the load`);
    const before = scope.length ? await snapshotStock(ctx.baseUrl, scope) : new Map<string, number>();
    return { state: { stock: { scope, before } } };
  },
};
