import { useId } from "react";
import type { CellRef } from "../types.ts";

/** Picks the workload x distribution cell the per-cell charts show. */
export function CellSelect(props: { cells: readonly CellRef[]; value: string | null; onChange: (key: string) => void }) {
  const id = useId();
  if (props.cells.length === 0) return null;
  return (
    <div className="sfb-cell-select" style={{ margin: "0 0 16px", fontSize: 14 }}>
      <label htmlFor={id} style={{ marginRight: 8 }}>
        Workload / distribution
      </label>
      <select id={id} data-cell-select="true" value={props.value ?? ""} onChange={(e) => props.onChange(e.target.value)}>
        {props.cells.map((c) => (
          <option key={c.key} value={c.key}>
            {c.label}
          </option>
        ))}
      </select>
    </div>
  );
}
