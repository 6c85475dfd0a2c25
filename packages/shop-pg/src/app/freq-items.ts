/**
 * "Frequently bought together" (SPEC 2.2).
 *
 * top(p, n, V): the n products q with the highest count[p][q], ties by
 * ascending id, q not in V. visit(p, d, V) = C ∪ ⋃ visit(c, d-1, V ∪ C) for
 * C = top(p, n, V). The tree is walked level by level: all visits of one level
 * run concurrently as one statement per chunk, so a query costs about `depth`
 * round trips instead of one per visited product.
 */
import type { Db } from "./db.ts";
import { AppError, notFound } from "./errors.ts";
import { wallMicros } from "@sfbench/core/span";
import { recordFunctionSpans, type Trace } from "./trace.ts";

/** Visits per statement. */
const CHUNK = 500;

/** Children of one visit: they share the exclusion set V' = V ∪ C. */
interface Siblings {
  exclude: readonly string[];
  members: readonly string[];
}

export interface FreqItemsLimits {
  /** Refuse (400) queries that would visit more products than this. */
  maxVisits: number;
}

export const DEFAULT_FREQ_LIMITS: FreqItemsLimits = { maxVisits: 100_000 };

export async function freqItems(
  db: Db,
  root: string,
  top: number,
  depth: number,
  trace?: Trace,
  limits: FreqItemsLimits = DEFAULT_FREQ_LIMITS,
): Promise<string[]> {
  const start = trace ? wallMicros() : 0;
  const { rows } = await db.query<{ found: boolean; top: string[] }>({
    name: "freq-root",
    text: `SELECT EXISTS (SELECT 1 FROM products WHERE id = $1) AS found,
                  ARRAY (SELECT q FROM co_purchase WHERE p = $1 AND q <> $1 ORDER BY count DESC, q LIMIT $2) AS top`,
    values: [root, top],
  });
  if (trace) recordFunctionSpans(trace, "product", "top", [root], start, wallMicros());
  const first = rows[0];
  if (!first?.found) throw notFound("product", root);

  const answer = new Set(first.top);
  let level: Siblings[] = first.top.length > 0 ? [{ exclude: [root, ...first.top], members: first.top }] : [];
  let visits = 1;
  for (let remaining = depth - 1; remaining >= 1 && level.length > 0; remaining--) {
    visits += level.reduce((n, s) => n + s.members.length, 0);
    if (visits > limits.maxVisits) {
      throw new AppError("bad-request", `top=${top}&depth=${depth} would visit more than ${limits.maxVisits} products`);
    }
    const tops = await topOfLevel(db, level, top, trace);
    const next: Siblings[] = [];
    level.forEach((siblings, s) =>
      siblings.members.forEach((_, m) => {
        const c = tops[s]![m]!;
        for (const q of c) answer.add(q);
        if (remaining > 1 && c.length > 0) next.push({ exclude: [...siblings.exclude, ...c], members: c });
      }),
    );
    level = next;
  }
  return [...answer];
}

/** top(member, n, exclude) for every member of every group: result[group][member]. */
async function topOfLevel(db: Db, level: readonly Siblings[], n: number, trace?: Trace): Promise<string[][][]> {
  const result = level.map((s) => s.members.map((): string[] => []));
  const chunks: { group: number; member: number }[][] = [[]];
  level.forEach((s, group) =>
    s.members.forEach((_, member) => {
      if (chunks.at(-1)!.length >= CHUNK) chunks.push([]);
      chunks.at(-1)!.push({ group, member });
    }),
  );
  await Promise.all(
    chunks.map(async (chunk) => {
      // Each group's exclusion set goes into `flat` once; a visit names its slice [lo, hi] (1-based).
      const flat: string[] = [];
      const ps: string[] = [];
      const los: number[] = [];
      const his: number[] = [];
      let lastGroup = -1;
      for (const { group, member } of chunk) {
        const s = level[group]!;
        if (group !== lastGroup) {
          flat.push(...s.exclude);
          lastGroup = group;
        }
        ps.push(s.members[member]!);
        los.push(flat.length - s.exclude.length + 1);
        his.push(flat.length);
      }
      const start = trace ? wallMicros() : 0;
      const { rows } = await db.query<{ i: number; q: string }>({
        name: "freq-level",
        text: `SELECT x.i, t.q
               FROM unnest($1::text[], $2::int[], $3::int[]) WITH ORDINALITY AS x (p, lo, hi, i)
               CROSS JOIN LATERAL (
                 SELECT c.q FROM co_purchase c
                 WHERE c.p = x.p AND c.q <> ALL (($4::text[])[x.lo:x.hi])
                 ORDER BY c.count DESC, c.q LIMIT $5
               ) AS t`,
        values: [ps, los, his, flat, n],
      });
      if (trace) recordFunctionSpans(trace, "product", "top", ps, start, wallMicros());
      for (const row of rows) {
        const { group, member } = chunk[row.i - 1]!;
        result[group]![member]!.push(row.q);
      }
    }),
  );
  return result;
}
