// Loaded with `node --import` by a test: every module the process resolves is
// appended to the file SFBENCH_IMPORTS_LOG names, so a test can tell what a
// command loads before it does anything.
import { register } from "node:module";

const hooks = `
import { appendFileSync } from "node:fs";
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  appendFileSync(${JSON.stringify(process.env.SFBENCH_IMPORTS_LOG)}, resolved.url + "\\n");
  return resolved;
}
`;
register(`data:text/javascript,${encodeURIComponent(hooks)}`);
