/**
 * The compared systems' sustainable rates as the board states them: median,
 * interval (with its coverage) and n of the latest campaign (a single run says n=1,
 * provisional), and the ratio to the reference from the same rounds. A table
 * stays readable with every system of the board in it.
 */
import type { CompareSystem } from "../server/queries/compare.ts";
import { fmtFigure, fmtRatio } from "../shared/format-figure.ts";
import { rateUnit } from "../shared/format.ts";
import { RATE_KEYS } from "../shared/leaderboard-params.ts";
import { MIN_RANKED_TRIALS, provisional } from "../shared/trial-figures.ts";

export function CompareFigures({ systems }: { systems: CompareSystem[] }) {
  const keys = RATE_KEYS.filter((k) => systems.some((s) => s.figures[k]));
  if (!keys.length) return null;
  return (
    <div className="table-wrap">
      <table className="table" data-testid="compare-figures">
        <thead>
          <tr>
            <th>System</th>
            {keys.map((k) => (
              <th key={k} className="num">{`${k.replace(".", " ")} (${rateUnit(k.split(".")[0]!)}): median [interval of the median] (its coverage), n`}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {systems.map((s) => (
            <tr key={s.slug} data-system={s.slug}>
              <td>
                {s.name}
                {Object.values(s.figures).some((f) => !provisional(f)) ? null : (
                  <span className="badge provisional" title={`fewer than ${MIN_RANKED_TRIALS} counted trials: not ranked`}>
                    provisional
                  </span>
                )}
              </td>
              {keys.map((k) => {
                const f = s.figures[k];
                return (
                  <td key={k} className="num" data-figure={f ? fmtFigure(f) : undefined}>
                    {f ? fmtFigure(f) : "—"}
                    {f?.ratio ? (
                      <>
                        <br />
                        <span className="muted">{fmtRatio(f.ratio)}</span>
                      </>
                    ) : null}
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
