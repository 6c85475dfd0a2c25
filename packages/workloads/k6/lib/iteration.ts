import exec from "k6/execution";
import { rngFor, type Rng } from "../../src/random.ts";

/**
 * The random stream of the current iteration: (SEED, scenario, iteration in
 * the scenario), so an iteration makes the same choices whichever VU runs it.
 */
export function iterationRng(seed: number): Rng {
  return rngFor(seed, exec.scenario.name, exec.scenario.iterationInTest);
}
