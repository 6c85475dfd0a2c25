import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { lastLines, logEnd, tail } from "../src/log-lines.ts";

describe("the end of a log", () => {
  const dir = mkdtempSync(join(tmpdir(), "sfbench-log-lines-"));

  it("reads only the last bytes, from the first whole line in them", () => {
    const file = join(dir, "long.log");
    writeFileSync(file, "a".repeat(100) + "\nsecond\nthird\n");
    expect(logEnd(file, 16)).toBe("second\nthird\n");
    expect(logEnd(file)).toBe("a".repeat(100) + "\nsecond\nthird\n");
  });

  it("gives the last lines, and says when there is no log", () => {
    const file = join(dir, "lines.log");
    writeFileSync(file, "1\n2\n3\n4\n\n");
    expect(lastLines(file, 2)).toBe("3\n4");
    expect(tail(file, 3)).toBe("2\n3\n4");
    writeFileSync(join(dir, "empty.log"), "");
    expect(lastLines(join(dir, "empty.log"))).toBeUndefined();
    expect(logEnd(join(dir, "missing.log"))).toBeUndefined();
    expect(tail(join(dir, "missing.log"))).toBe("(no log)");
  });
});
