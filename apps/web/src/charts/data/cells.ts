import { DISTRIBUTIONS, WORKLOADS, type Cell } from "@sfbench/core";
import type { CellRef, Distribution, Workload } from "../types.ts";

export const DEFAULT_CELL = "checkout/uniform";

export function cellKey(cell: Pick<Cell, "workload" | "distribution">): string {
  return `${cell.workload}/${cell.distribution}`;
}

export function cellRef(workload: Workload, distribution: Distribution): CellRef {
  return { key: `${workload}/${distribution}`, workload, distribution, label: `${workload} · ${distribution}` };
}

/** Every cell key present in any of the given cell lists, in the order workload x distribution of the schema. */
export function presentCells(cellLists: ReadonlyArray<ReadonlyArray<Pick<Cell, "workload" | "distribution">>>): CellRef[] {
  const present = new Set(cellLists.flatMap((cells) => cells.map(cellKey)));
  const out: CellRef[] = [];
  for (const w of WORKLOADS) for (const d of DISTRIBUTIONS) if (present.has(`${w}/${d}`)) out.push(cellRef(w, d));
  return out;
}

/** checkout/uniform when present, else the first cell present, else null. */
export function defaultCell(cells: readonly CellRef[]): string | null {
  return cells.find((c) => c.key === DEFAULT_CELL)?.key ?? cells[0]?.key ?? null;
}
