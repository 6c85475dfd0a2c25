/** User text renders as text: the leaderboard and run tables with a system named <script>alert(1)</script>. */
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { LeaderboardFilters, PopulationHeader } from "../src/components/leaderboard-filters.tsx";
import { LeaderboardTable } from "../src/components/leaderboard-table.tsx";
import type { Leaderboard } from "../src/server/queries/leaderboard.ts";
import { LeaderboardFilter } from "../src/shared/leaderboard-params.ts";
import { safeHref } from "../src/shared/safe-url.ts";

const EVIL = "<script>alert(1)</script>";

describe("XSS", () => {
  it("renders a system named <script>alert(1)</script> as text in the leaderboard", () => {
    const board: Leaderboard = {
      filter: LeaderboardFilter.parse({}),
      dir: "desc",
      rateKeys: ["checkout.uniform"],
      focus: { workload: "checkout", distribution: "uniform" },
      rows: [
        {
          slug: "evil",
          name: EVIL,
          runId: "00000000-0000-4000-8000-000000000000",
          version: '1.0.0"><img src=x onerror=alert(2)>',
          environmentKind: "local",
          nodes: 1,
          finishedAt: new Date(),
          verified: true,
          profile: '"><script>alert(4)</script>',
          rates: { "checkout.uniform": 100 },
          campaignId: null,
          machineClass: '"><script>alert(6)</script>',
          trials: 1,
          busyTrials: 0,
          figures: { "checkout.uniform": { n: 1, median: 100, min: 100, max: 100, interval: null, withinShareOfMedian: null } },
          standing: { rank: null, tiedWith: 0, provisional: true },
          resolutions: { "checkout.uniform": 0.08 },
          invalid: { "checkout.zipf": '"><script>alert(3)</script>' },
          smoke: { "analytics.uniform": '"><script>alert(5)</script>' },
          focus: null,
          loc: null,
          ratings: null,
          laterUnranked: null,
          versionCampaigns: [],
          focusFigures: {},
          implementation: "idiomatic",
          guarantees: { durability: "durable", consistency: "serializable", messaging: "exactly-once" },
        },
      ],
      total: 1,
      hiddenTuned: 0,
      page: 1,
      pages: 1,
      environments: [],
      rankedBy: "median",
      durability: "durable",
      otherLevels: [{ level: "unsynced", rows: 1 }],
      population: { kind: "local", profile: "standard", machineClass: '"><script>alert(7)</script>' },
      populations: [{ kind: "local", profile: "standard", machineClass: '"><script>alert(8)</script>', systems: 1, latest: new Date() }],
      unranked: [
        {
          runId: "00000000-0000-4000-8000-000000000002",
          systemId: "00000000-0000-4000-8000-000000000003",
          slug: "evil3",
          name: EVIL,
          version: "<i>2</i>",
          environmentKind: "local",
          nodes: 1,
          finishedAt: new Date(),
          status: "failed",
          reasons: ['failed at verify: "><script>alert(9)</script>'],
        },
      ],
      smoke: [{ runId: "00000000-0000-4000-8000-000000000001", slug: "evil2", name: EVIL, version: "<b>1</b>", profile: "quick", finishedAt: new Date() }],
    };
    const html = renderToStaticMarkup(
      <>
        <PopulationHeader board={board} />
        <LeaderboardFilters board={board} />
        <LeaderboardTable board={board} />
      </>,
    );
    expect(html).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(html).toContain("&lt;script&gt;alert(8)&lt;/script&gt;");
    expect(html).toContain("&lt;script&gt;alert(9)&lt;/script&gt;");
    expect(html).not.toContain("<script");
    expect(html).not.toContain("<img");
  });

  it("links a repository only when it is http(s)", () => {
    expect(safeHref("javascript:alert(1)")).toBeUndefined();
    expect(safeHref("data:text/html,<script>alert(1)</script>")).toBeUndefined();
    expect(safeHref("https://github.com/x/y")).toBe("https://github.com/x/y");
  });
});
