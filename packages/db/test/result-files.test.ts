import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { resultFiles } from "../src/import.ts";

describe("which files an import reads", () => {
  const dir = mkdtempSync(join(tmpdir(), "sfbench-result-files-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("reads every result document below a folder, a campaign's trials too, but not the campaign's own document", async () => {
    const campaign = join(dir, "campaigns", "20261125-015944-df7ee1d4");
    mkdirSync(join(campaign, "node-postgres"), { recursive: true });
    mkdirSync(join(dir, "node-postgres"), { recursive: true });
    for (const f of [join(campaign, "campaign.json"), join(campaign, "node-postgres", "a.json"), join(dir, "node-postgres", "b.json"), join(dir, "notes.txt")])
      writeFileSync(f, "{}");
    expect(await resultFiles(dir)).toEqual([join(campaign, "node-postgres", "a.json"), join(dir, "node-postgres", "b.json")]);
  });
});
