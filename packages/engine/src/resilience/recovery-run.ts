/**
 * The recovery experiment of a run: for each state size of the
 * profile, load that many products (and a tenth as many users), kill the
 * target, start it again with its data, and measure until /health and until
 * the first checkout; then read a sample of what was loaded back.
 */
import type { RecoveryResult } from "@sfbench/core";
import { nodeSupport } from "@sfbench/core";
import { progress, StageError, type RunContext, type TargetControl } from "../experiment/phase.ts";
import { measureRecovery, seedState } from "./recovery.ts";

export async function runRecovery(ctx: RunContext, t: TargetControl, stateSizes: readonly number[]): Promise<RecoveryResult> {
  const points: RecoveryResult["points"] = [];
  const restartTimeoutMs = nodeSupport(t.manifest).restartTimeoutSeconds * 1000;
  for (const products of stateSizes) {
    const users = Math.max(1, Math.round(products / 10));
    ctx.checkAlive(`recovery (loading ${products} products)`);
    progress(ctx, "-", "recovery", `loading ${products} products and ${users} users`);
    const state = await seedState(ctx.baseUrl, {
      products,
      users,
      prefix: `${ctx.productPrefix}-rec${products}`,
      seed: ctx.seed,
      concurrency: 32,
      onProgress: (written, total) => progress(ctx, "-", "recovery", `loaded ${written} of ${total} entities`),
    });
    progress(ctx, "-", "recovery", `kill -9 with ${products} products loaded, then a restart with the data`);
    const point = await measureRecovery({
      baseUrl: ctx.baseUrl,
      health: t.manifest.health,
      state,
      kill: () => t.kill(0, "SIGKILL"),
      restart: () => t.restart(0),
      healthTimeoutMs: restartTimeoutMs,
    });
    if (point.healthAfterS === null)
      throw new StageError("recovery", `the target did not come back after kill -9 with ${products} products: ${point.failure ?? "no answer"}`);
    progress(
      ctx,
      "-",
      "recovery",
      `${products} products: health after ${point.healthAfterS.toFixed(2)} s, first checkout after ${point.firstCheckoutAfterS === null ? "never" : `${point.firstCheckoutAfterS.toFixed(2)} s`}, ${point.missing} of ${point.checked} missing, ${point.changed} changed`,
    );
    points.push(point);
  }
  return { points };
}
