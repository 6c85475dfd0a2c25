import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";
import { conformanceMarkdown } from "../src/docs.ts";

it("docs/conformance.md lists the suite's checks as they are (run `npm run docs -w @sfbench/conformance`)", () => {
  const committed = readFileSync(fileURLToPath(new URL("../../../docs/conformance.md", import.meta.url)), "utf8");
  expect(committed).toBe(conformanceMarkdown());
});
