/**
 * The board's rate as a chart: one bar per row (its median), the interval of the median
 * as an error bar and min..max as a thin line, so overlapping intervals (ties)
 * are seen at a glance. Plain server-rendered SVG: it needs no script and
 * scales with the number of rows (one line each).
 */
import type { Leaderboard } from "../server/queries/leaderboard.ts";
import { fmtFigure } from "../shared/format-figure.ts";
import { fmtRate, rateUnit } from "../shared/format.ts";
import { RATE_KEYS, type RateKey } from "../shared/leaderboard-params.ts";
import { provisional } from "../shared/trial-figures.ts";

const LINE = 22;
const LABEL = 200;
const WIDTH = 760;
const PAD = 8;
/** room right of the longest bar for its figure */
const FIGURE_ROOM = 150;

export function BoardChart({ board }: { board: Leaderboard }) {
  const key: RateKey = (RATE_KEYS as readonly string[]).includes(board.filter.sort) ? (board.filter.sort as RateKey) : board.rateKeys[0]!;
  const rows = board.rows.filter((r) => r.figures[key]);
  if (!rows.length) return null;
  const top = Math.max(...rows.map((r) => r.figures[key]!.interval?.high ?? 0), ...rows.map((r) => r.figures[key]!.max));
  const plot = WIDTH - LABEL - FIGURE_ROOM - PAD;
  const x = (v: number) => LABEL + (Math.max(0, v) / top) * plot;
  const height = rows.length * LINE + PAD * 2;
  const [workload, distribution] = key.split(".");
  return (
    <figure className="board-chart" data-testid="board-chart" data-cell={key}>
      <figcaption className="muted">
        {`${workload} ${distribution}: median sustainable rate (${rateUnit(workload!)}), the interval of the median as error bar, min-max as thin line; hollow bars are provisional (fewer than 3 counted trials)`}
      </figcaption>
      <svg
        viewBox={`0 0 ${WIDTH} ${height}`}
        width="100%"
        style={{ maxWidth: WIDTH }}
        role="img"
        aria-label={`median ${workload} ${distribution} sustainable rate per system with the intervals of the medians`}
      >
        {rows.map((r, i) => {
          const f = r.figures[key]!;
          const y = PAD + i * LINE;
          const mid = y + LINE / 2;
          const single = provisional(f);
          return (
            <g key={`${r.slug}:${r.environmentKind}:${r.nodes}`} data-system={r.slug} data-provisional={single ? "" : undefined}>
              <text x={LABEL - 6} y={mid + 4} textAnchor="end" fontSize="12">{`${r.name} (${r.nodes} node${r.nodes === 1 ? "" : "s"})`}</text>
              <rect
                x={LABEL}
                y={y + 4}
                width={x(f.median) - LABEL}
                height={LINE - 8}
                fill={single ? "none" : "#9db4ef"}
                stroke="#2f5bd3"
                strokeDasharray={single ? "3 2" : undefined}
              />
              <line x1={x(f.min)} x2={x(f.max)} y1={mid} y2={mid} stroke="#667085" strokeWidth="1" />
              {f.interval ? (
                <g className="error-bar" stroke="#1d2330" strokeWidth="2">
                  <line x1={x(f.interval.low)} x2={x(f.interval.high)} y1={mid} y2={mid} />
                  <line x1={x(f.interval.low)} x2={x(f.interval.low)} y1={y + 5} y2={y + LINE - 5} />
                  <line x1={x(f.interval.high)} x2={x(f.interval.high)} y1={y + 5} y2={y + LINE - 5} />
                </g>
              ) : null}
              <text x={Math.max(x(f.max), x(f.interval?.high ?? 0)) + 6} y={mid + 4} fontSize="11" fill="#667085">
                {fmtFigure(f)}
              </text>
            </g>
          );
        })}
        <text x={LABEL} y={height - 1} fontSize="10" fill="#667085">
          0
        </text>
        <text x={LABEL + plot} y={height - 1} fontSize="10" fill="#667085" textAnchor="end">
          {fmtRate(top)}
        </text>
      </svg>
    </figure>
  );
}
