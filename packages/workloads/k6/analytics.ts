/**
 * Analytics (SPEC 4, query phase; run k6/populate.ts first): each iteration
 * asks GET /products/{root}/freq-items with a shape drawn with equal
 * probability: linear (top 1, depth U[1,20]), fan-out (depth 2, top U[2,20]),
 * exponential (top U[2,10], depth U[3, floor(log_top 1000)+1]). The root is
 * chosen by DISTRIBUTION. Open model: one scenario per STEPS entry.
 *
 *   k6 run -e BASE_URL=http://127.0.0.1:8080 -e SEED=1 -e STEPS='[{"rate":100,"duration":30}]' k6/analytics.ts
 */
import { freqQuery, productChooser, productId } from "../src/distributions.ts";
import { analyticsEnv } from "../src/workload-env.ts";
import { Api } from "./lib/http.ts";
import { iterationRng } from "./lib/iteration.ts";
import { arrivalOptions } from "./lib/options.ts";

const config = analyticsEnv(__ENV);
const api = new Api(config.baseUrl, config.traced);
const choose = productChooser({ n: config.products, distribution: config.distribution, s: config.zipfS, seed: config.seed });

export const options = arrivalOptions(config);

export default function (): void {
  const rng = iterationRng(config.seed);
  const query = freqQuery(rng);
  const root = productId(config.productPrefix, choose(rng));
  api.freqItems(root, query.top, query.depth, query.shape);
}
