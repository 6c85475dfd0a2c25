import { readFileSync } from "node:fs";
import { expect, it } from "vitest";
import { EXIT } from "../src/exit.ts";

it("the README's table of exit codes lists exactly the codes the CLI uses", () => {
  const readme = readFileSync(new URL("../../../README.md", import.meta.url), "utf8");
  const table = readme.slice(readme.indexOf("| exit code | meaning |"));
  const rows = [...table.matchAll(/^\| (\d) \| (.+) \|$/gm)].map((m) => Number(m[1]));
  expect(rows).toEqual(Object.values(EXIT));
});
