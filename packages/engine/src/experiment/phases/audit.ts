/**
 * Audit (SPEC 2.3) of what the cell's checkouts did: stock, charges, orders
 * and co-purchase counts read back from the target and compared with the
 * records k6 kept. Analytics sends no checkouts in its cell: its audit is of
 * the co-purchase graph its queries read, compared with every order since the
 * target started (populate's among them), so that a fast answer from a wrong
 * graph is not ranked.
 */
import { audit as auditTarget } from "../../audit/audit.ts";
import { progress, StageError, type Phase } from "../phase.ts";

export const audit: Phase = {
  name: "audit",
  needs: ["stock", "ramp", "stable"],
  adds: [],
  async run(ctx, cell, state) {
    const loads = [...state.ramp!.steps, state.stable!.outcome, ...(state.traced ? [state.traced.outcome] : [])];
    const checkouts = loads.flatMap((p) => p.checkouts);
    ctx.allCheckouts.push(...checkouts);
    const graphOnly = cell.workload === "analytics";
    const { scope, before } = state.stock!;
    ctx.checkAlive("audit");
    progress(
      ctx,
      cell,
      "audit",
      graphOnly
        ? `the co-purchase graph of ${ctx.allCheckouts.length} checkouts, ${ctx.settings.coPurchaseSample} products`
        : `${checkouts.length} checkouts, ${scope.length} products`,
    );
    const stockAdded = new Map<string, number>();
    for (const p of loads) for (const [id, n] of p.stockAdded) stockAdded.set(id, (stockAdded.get(id) ?? 0) + n);
    const s = ctx.settings;
    const result = await auditTarget({
      baseUrl: ctx.baseUrl,
      records: graphOnly ? [] : checkouts,
      allRecords: ctx.allCheckouts,
      idOf: (p) => String(p),
      priceOf: (id) => ctx.prices.get(id) ?? NaN,
      stockBefore: graphOnly ? new Map() : before,
      stockAdded,
      sampleRecords: s.auditSample,
      coPurchaseSample: s.coPurchaseSample,
      quietMs: s.quietMs,
      readsPerSecond: ctx.auditReadsPerSecond,
    }).catch(async (e: Error) => {
      // a read that could not be sent at all: when the target died under the audit, that is the
      // reason, not the read's "fetch failed" (its exit is seen a moment after its socket closed)
      for (let i = 0; i < 30; i++) {
        ctx.checkAlive("audit");
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new StageError("audit", `audit: ${e.message}`);
    });
    return {
      ...(ctx.auditReadsPerSecond ? { parameters: { auditReadsPerSecond: ctx.auditReadsPerSecond } } : {}),
      result: {
        anomalies: {
          kinds: result.anomalies,
          total: result.total,
          ...(result.examples.length ? { examples: result.examples } : {}),
          ambiguous: result.ambiguous,
        },
      },
    };
  },
};
