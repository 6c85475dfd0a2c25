/** The leaderboard's filters: a plain GET form, so a filtered leaderboard is a shareable URL and works without JavaScript. */
import type { Leaderboard } from "../server/queries/leaderboard.ts";
import { DISTRIBUTIONS, ENVIRONMENT_KINDS, PROFILES, WORKLOADS } from "@sfbench/core/contract";
import { fmtEnvironment } from "../shared/format.ts";

/** In the micro view (`microRows`: its row count) only the environment filters apply. */
export function LeaderboardFilters({ board, microRows }: { board: Leaderboard; microRows?: number }) {
  const { filter } = board;
  const micro = microRows !== undefined;
  const nodeCounts = [...new Set(board.environments.filter((e) => filter.kind === "all" || e.kind === filter.kind).map((e) => e.nodes))].sort((a, b) => a - b);
  return (
    <form className="filters" method="get" action="/" aria-label="Filters">
      {micro ? null : (
        <>
          <label>
            Workload
            <select name="workload" defaultValue={filter.workload}>
              <option value="all">checkout + analytics</option>
              {WORKLOADS.map((w) => (
                <option key={w} value={w}>
                  {w}
                </option>
              ))}
            </select>
          </label>
          <label>
            Distribution
            <select name="distribution" defaultValue={filter.distribution}>
              <option value="all">uniform + zipf</option>
              {DISTRIBUTIONS.map((d) => (
                <option key={d} value={d}>
                  {d}
                </option>
              ))}
            </select>
          </label>
        </>
      )}
      <label>
        Environment
        <select name="kind" defaultValue={filter.kind}>
          <option value="all">any</option>
          {ENVIRONMENT_KINDS.map((k) => (
            <option key={k} value={k}>
              {k}
            </option>
          ))}
        </select>
      </label>
      <label>
        Nodes
        <select name="nodes" defaultValue={filter.nodes ?? ""}>
          <option value="">any</option>
          {nodeCounts.map((n) => (
            <option key={n} value={n}>
              {n}
            </option>
          ))}
        </select>
      </label>
      {micro ? null : (
        <>
          <label title="the load profile the runs used; medians are compared within one">
            Profile
            <select name="profile" defaultValue={filter.profile}>
              <option value="all">any</option>
              {PROFILES.filter((p) => board.profiles.includes(p) || p === filter.profile).map((p) => (
                <option key={p} value={p}>
                  {p}
                </option>
              ))}
            </select>
          </label>
          <label title="cores, CPU model and memory of the machine the runs measured on: knees of different machines are not one population">
            Machine
            <select name="machine" defaultValue={filter.machine ?? ""} data-testid="machine-filter">
              <option value="">any</option>
              {[...new Set([...board.machineClasses, ...(filter.machine ? [filter.machine] : [])])].map((m) => (
                <option key={m} value={m}>
                  {m}
                </option>
              ))}
            </select>
          </label>
        </>
      )}
      {micro ? null : (
        <label title="tuned: optimised for this benchmark (target.json implementation); idiomatic implementations are always shown">
          <input type="checkbox" name="tuned" value="1" defaultChecked={filter.tuned} data-testid="show-tuned" /> show tuned implementations
        </label>
      )}
      {filter.view !== "rates" ? <input type="hidden" name="view" value={filter.view} /> : null}
      <input type="hidden" name="sort" value={filter.sort} />
      {filter.dir ? <input type="hidden" name="dir" value={filter.dir} /> : null}
      <button type="submit">Apply</button>
      <span className="muted">
        {micro ? microRows : board.total} row{(micro ? microRows : board.total) === 1 ? "" : "s"}
        {board.environments.length ? ` · environments: ${board.environments.map((e) => fmtEnvironment(e.kind, e.nodes)).join("; ")}` : ""}
      </span>
    </form>
  );
}
