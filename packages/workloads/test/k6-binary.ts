/**
 * The k6 the tests run: found (or built) the way the product finds it,
 * `@sfbench/services`' k6Path() (PATH, then .sfbench/bin). Never a
 * developer's home: a test that passes only where ~/go/bin/k6 exists hides a
 * missing install step.
 */
import { k6Path } from "@sfbench/services";

export async function k6Binary(): Promise<string> {
  return process.env.K6 ?? (await k6Path());
}
