/**
 * A team's source archive as the worker unpacks it for cloc: regular files and
 * folders under relative, printable names land in the folder; every archive
 * of the shared table of bad ones (the portal's upload test refuses the same
 * table) is refused whole, naming the rule, and nothing outside the folder is
 * written.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BAD_SOURCE_ARCHIVES, GOOD_SOURCE_ARCHIVE, writeSourceArchive } from "@sfbench/core/testing/source-archives";
import { describe, expect, it } from "vitest";
import { SOURCE_ARCHIVE_LIMITS, SourceArchiveRefused, unpackSources } from "../src/unpack-sources.ts";

const work = mkdtempSync(join(tmpdir(), "sfbench-unpack-"));

describe("a source archive unpacked for cloc", () => {
  it("writes its files and folders, gzip or not", async () => {
    for (const gz of [false, true]) {
      const dir = mkdtempSync(join(work, "ok-"));
      const file = writeSourceArchive(work, `ok-${gz}`, GOOD_SOURCE_ARCHIVE, gz);
      expect(await unpackSources(file, dir)).toEqual({ entries: 3, bytes: 24 });
      expect(readFileSync(join(dir, "src/app.ts"), "utf8")).toBe("export const a = 1;\n");
    }
  });

  it.each(BAD_SOURCE_ARCHIVES.map((f) => [f.what, f] as const))("refuses %s, naming the rule, and writes nothing of it", async (_what, fixture) => {
    const dir = mkdtempSync(join(work, "into-"));
    const file = writeSourceArchive(work, fixture.what, fixture.members, fixture.gz);
    const error = await unpackSources(file, dir, { ...SOURCE_ARCHIVE_LIMITS, ...fixture.limits }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error, "the archive should have been refused").toBeInstanceOf(SourceArchiveRefused);
    expect((error as SourceArchiveRefused).rule).toBe(fixture.rule);
    expect((error as Error).message).toMatch(/^source archive refused: /);
    expect((error as SourceArchiveRefused).problem).toMatch(fixture.problem);
    // a file before the bad entry may have landed; nothing the bad entry names has
    expect(readdirSync(dir, { recursive: true }).filter((f) => !/^(a\.ts|f\d\.ts|src)$/.test(String(f)))).toEqual([]);
    expect(existsSync("/tmp/sfbench-unpack-escape.ts")).toBe(false);
    expect(existsSync(join(work, "escape.ts"))).toBe(false);
  });
});
