/**
 * A target version's lines of code: what sfbench counted (cloc over the
 * manifest's loc globs, when the version first ran) as the figure, and what
 * the submitter stated, if anything, only as "declared".
 */
import type { LocCounts } from "@sfbench/db";

const sum = (loc: LocCounts) =>
  Object.values(loc).reduce((t, c) => ({ app: t.app + (c?.app ?? 0), gateway: t.gateway + (c?.gateway ?? 0) }), { app: 0, gateway: 0 });

export function VersionLoc({ loc, declaredLoc }: { loc: LocCounts | null; declaredLoc: LocCounts | null }) {
  const declared = declaredLoc ? sum(declaredLoc) : null;
  return (
    <div data-testid="version-loc">
      {loc ? (
        <table className="table" style={{ width: "auto" }}>
          <caption className="muted">Lines of code, counted by sfbench (cloc over target.json&apos;s loc globs)</caption>
          <thead>
            <tr>
              <th>Language</th>
              <th className="num">app LOC</th>
              <th className="num">gateway LOC</th>
            </tr>
          </thead>
          <tbody>
            {Object.entries(loc).map(([lang, c]) => (
              <tr key={lang}>
                <td>{lang}</td>
                <td className="num">{c?.app}</td>
                <td className="num">{c?.gateway}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <p className="muted">LOC not counted yet (sfbench counts them when the version first runs, from its source).</p>
      )}
      {declared ? (
        <p className="muted" data-testid="declared-loc">
          Declared by the submitter (not counted by sfbench): {declared.app} app + {declared.gateway} gateway lines.
        </p>
      ) : null}
    </div>
  );
}
