/** The leaderboard's filters: a plain GET form, so a filtered leaderboard is a shareable URL and works without JavaScript. */
import type { Leaderboard } from "../server/queries/leaderboard.ts";
import { DISTRIBUTIONS, WORKLOADS } from "@sfbench/core/contract";
import { machineParam, populationLabel, samePopulation, type PopulationKey } from "../server/queries/populations.ts";
import { fmtEnvironment } from "../shared/format.ts";
import { DEFAULT_DURABILITY, DURABILITY_TEXT } from "../shared/implementation.ts";
import type { LeaderboardFilter } from "../shared/leaderboard-params.ts";

/** The link to another population (or durability level: `durability`), keeping the view, cells and sort. */
export function populationHref(filter: LeaderboardFilter, p: PopulationKey, durability = filter.durability): string {
  const params = new URLSearchParams();
  if (filter.view !== "rates") params.set("view", filter.view);
  if (filter.workload !== "all") params.set("workload", filter.workload);
  if (filter.distribution !== "all") params.set("distribution", filter.distribution);
  if (filter.sort !== "checkout.uniform") params.set("sort", filter.sort);
  if (filter.tuned) params.set("tuned", "1");
  params.set("kind", p.kind);
  params.set("profile", p.profile);
  params.set("machine", machineParam(p.machineClass));
  if (durability && durability !== DEFAULT_DURABILITY) params.set("durability", durability);
  return `/?${params.toString()}`;
}

/** Which population the board ranks within, and the others, each a click away. */
export function PopulationHeader({ board }: { board: Leaderboard }) {
  const shown = board.populations.find((p) => samePopulation(p, board.population));
  const others = board.populations.filter((p) => !samePopulation(p, board.population));
  return (
    <section data-testid="population" className="population">
      <p>
        Ranked within one population: <strong data-testid="population-shown">{populationLabel(board.population)}</strong> (
        {shown ? `${shown.systems} system${shown.systems === 1 ? "" : "s"} with ranked runs` : "no ranked runs"}). Knees of different machines, profiles or
        environments are never ranked against each other.
      </p>
      <p data-testid="durability-level">
        Durability <strong>{board.durability}</strong>: {DURABILITY_TEXT[board.durability]}.{" "}
        {board.otherLevels.length ? (
          <span className="muted" data-testid="other-levels">
            Ranked apart:{" "}
            {board.otherLevels.map((o, i) => (
              <span key={o.level}>
                {i ? "; " : ""}
                <a href={populationHref(board.filter, board.population, o.level)}>{o.level}</a> ({o.rows} row{o.rows === 1 ? "" : "s"})
              </span>
            ))}
          </span>
        ) : null}
      </p>
      {others.length ? (
        <p className="muted" data-testid="other-populations">
          {others.length} other population{others.length === 1 ? "" : "s"}:{" "}
          {others.map((p, i) => (
            <span key={populationLabel(p)}>
              {i ? "; " : ""}
              <a href={populationHref(board.filter, p)}>{populationLabel(p)}</a> ({p.systems} system{p.systems === 1 ? "" : "s"})
            </span>
          ))}
        </p>
      ) : null}
    </section>
  );
}

/** In the micro view (`microRows`: its row count) only the environment filters apply. */
export function LeaderboardFilters({ board, microRows }: { board: Leaderboard; microRows?: number }) {
  const { filter } = board;
  const micro = microRows !== undefined;
  const { population } = board;
  const nodeCounts = [...new Set(board.environments.filter((e) => e.kind === population.kind).map((e) => e.nodes))].sort((a, b) => a - b);
  const kinds = [...new Set([population.kind, ...board.populations.map((p) => p.kind)])];
  const profiles = [...new Set([population.profile, ...board.populations.filter((p) => p.kind === population.kind).map((p) => p.profile)])];
  const machines = [
    ...new Set([
      population.machineClass,
      ...board.populations.filter((p) => p.kind === population.kind && p.profile === population.profile).map((p) => p.machineClass),
    ]),
  ];
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
        <select name="kind" defaultValue={population.kind}>
          {kinds.map((k) => (
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
            <select name="profile" defaultValue={population.profile}>
              {profiles.map((p) => (
                <option key={p} value={p}>
                  {p}
                </option>
              ))}
            </select>
          </label>
          <label title="cores, CPU model and memory of the machine the runs measured on: knees of different machines are not one population">
            Machine
            <select name="machine" defaultValue={machineParam(population.machineClass)} data-testid="machine-filter">
              {machines.map((m) => (
                <option key={machineParam(m)} value={machineParam(m)}>
                  {m ?? "not recorded"}
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
      {filter.durability ? <input type="hidden" name="durability" value={filter.durability} /> : null}
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
