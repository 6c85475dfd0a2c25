/** Compare systems side by side (2 or more, up to every system of the board): /compare?systems=a,b[,...][&env=local:1]. The charts are the thesis's figures. */
import type { Metadata } from "next";
import Link from "next/link";
import { redirect } from "next/navigation";
import { buildCompareData, buildMicroCompareData, CompareCharts, MicroCompareCharts } from "../../charts/index.ts";
import { getDb } from "../../server/db.ts";
import { getCompare, parseEnvironment } from "../../server/queries/compare.ts";
import { machineParam, populationLabel, readPopulationRequest, samePopulation, type PopulationRequest } from "../../server/queries/populations.ts";
import { microCompareInput } from "../../server/queries/micro.ts";
import { fmtEnvironment } from "../../shared/format.ts";
import { CompareFigures } from "../../components/compare-figures.tsx";
import { ImplementationBadge } from "../../components/implementation-class.tsx";
import { compareHref, readCompareSlugs, readShowTuned } from "../../shared/compare-params.ts";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Compare" };

type Search = Record<string, string | string[] | undefined>;

export default async function ComparePage({ searchParams }: { searchParams: Promise<Search> }) {
  const params = await searchParams;
  const { slugs, problem, canonical } = readCompareSlugs(params);
  const envText = typeof params.env === "string" ? params.env : undefined;
  const tuned = readShowTuned(params);
  const request = readPopulationRequest(params);
  if (canonical) redirect(compareHref(slugs, envText, tuned, request));
  return (
    <>
      <h1>Compare</h1>
      <form method="get" action="/compare" className="filters">
        <label>
          Systems (2 or more, comma-separated)
          <input name="systems" defaultValue={slugs.join(",")} placeholder="node-postgres,restate" size={40} />
        </label>
        <label title="tuned: optimised for this benchmark (target.json implementation)">
          <input type="checkbox" name="tuned" value="1" defaultChecked={tuned} data-testid="show-tuned" /> show tuned implementations
        </label>
        <button type="submit">Compare</button>
      </form>
      {problem ? (
        <p className="form-error" role="alert">
          {problem}
        </p>
      ) : (
        <CompareBody slugs={slugs} envText={envText} tuned={tuned} request={request} />
      )}
    </>
  );
}

async function CompareBody({ slugs, envText, tuned, request }: { slugs: string[]; envText: string | undefined; tuned: boolean; request: PopulationRequest }) {
  const db = await getDb();
  const wanted = parseEnvironment(envText);
  const compare = await getCompare(db, slugs, wanted, tuned, request);
  const shown = compare.population && { profile: compare.population.profile, machine: machineParam(compare.population.machineClass) };
  const data = buildCompareData(compare.input);
  // micro runs may have no ranked cell (sfbench run --workload micro): without a chosen environment, the one asked for or local, 1 node
  const microEnv = compare.environment ?? wanted ?? { kind: "local" as const, nodes: 1 };
  // a tuned implementation left out of the charts above is left out of these too
  const micro = await microCompareInput(
    db,
    compare.systems.filter((s) => !s.tunedHidden),
    microEnv,
  );
  return (
    <>
      {compare.unknown.length ? <p className="form-error">No system named {compare.unknown.map((s) => `"${s}"`).join(", ")}.</p> : null}
      {compare.population ? (
        <p data-testid="population">
          Compared within one population: <strong data-testid="population-shown">{populationLabel(compare.population)}</strong>.
          {compare.populations.length > 1 ? (
            <span className="muted" data-testid="other-populations">
              {" "}
              Also:{" "}
              {compare.populations
                .filter((p) => !samePopulation(p, compare.population!))
                .map((p, i) => (
                  <span key={populationLabel(p)}>
                    {i ? "; " : ""}
                    <Link href={compareHref(slugs, undefined, tuned, { kind: p.kind, profile: p.profile, machine: machineParam(p.machineClass) })}>
                      {populationLabel(p)}
                    </Link>{" "}
                    ({p.systems} of these systems)
                  </span>
                ))}
            </span>
          ) : null}
        </p>
      ) : null}
      <div className="subnav">
        <span className="muted">Environment:</span>
        {compare.environments.map((e) => {
          const key = `${e.kind}:${e.nodes}`;
          const active = compare.environment && key === `${compare.environment.kind}:${compare.environment.nodes}`;
          return active ? (
            <strong key={key}>
              {fmtEnvironment(e.kind, e.nodes)} ({e.systems})
            </strong>
          ) : (
            <Link key={key} href={compareHref(slugs, key, tuned, shown ?? {})}>
              {fmtEnvironment(e.kind, e.nodes)} ({e.systems})
            </Link>
          );
        })}
        {compare.environments.length === 0 ? <span className="muted">none of these systems has a completed run</span> : null}
      </div>
      <ul data-testid="compare-systems">
        {compare.systems.map((s) => (
          <li key={s.slug} data-system={s.slug}>
            <Link href={`/systems/${encodeURIComponent(s.slug)}`}>{s.name}</Link>{" "}
            {s.runId ? (
              <Link href={`/runs/${s.runId}`} className="muted">
                run {s.runId.slice(0, 8)} ({s.version})
              </Link>
            ) : s.tunedHidden ? (
              <span className="muted" data-testid="tuned-hidden">
                a tuned implementation (optimised for this benchmark), hidden:{" "}
                <Link href={compareHref(slugs, envText, true, shown ?? {})}>show tuned implementations</Link>
              </span>
            ) : (
              <span className="muted">no ranked run in this population and environment</span>
            )}
            {s.cls ? (
              <>
                {" "}
                <ImplementationBadge cls={s.cls} />
              </>
            ) : null}
          </li>
        ))}
      </ul>
      <CompareFigures systems={compare.systems} />
      <div data-testid="compare-charts">
        <CompareCharts data={data} />
      </div>
      <h2>Microbenchmarks</h2>
      <p className="muted" data-testid="micro-systems">
        {fmtEnvironment(microEnv.kind, microEnv.nodes)}; each system&apos;s latest completed run with microbenchmarks:{" "}
        {micro.map((m, i) => (
          <span key={m.slug}>
            {i > 0 ? " · " : ""}
            {m.name} {m.runId ? <Link href={`/runs/${m.runId}`}>run {m.runId.slice(0, 8)}</Link> : "none"}
          </span>
        ))}
      </p>
      <MicroCompareCharts data={buildMicroCompareData(micro)} />
    </>
  );
}
