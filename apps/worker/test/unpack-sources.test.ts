/**
 * A team's source archive as the worker unpacks it for cloc: regular files and
 * folders under relative, printable names land in the folder; every other
 * archive a team could craft (links, a FIFO, absolute or `..` names, a newline
 * in a name, too many entries, a decompression bomb) is refused whole, naming
 * the rule, and nothing outside the folder is written. The fixtures are made
 * with Python's tarfile, which writes whatever a header can say.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SOURCE_ARCHIVE_LIMITS, SourceArchiveRefused, unpackSources } from "../src/unpack-sources.ts";

const work = mkdtempSync(join(tmpdir(), "sfbench-unpack-"));

/** Writes a tar (gzip with `gz`) of the given members; each is [name, kind, content, link target or (zeros) a size]. */
function archive(name: string, members: [string, "file" | "zeros" | "dir" | "symlink" | "hardlink" | "fifo", string?][], gz = false): string {
  const file = join(work, `${name}.tar${gz ? ".gz" : ""}`);
  const script = `
import io, json, sys, tarfile
members = json.loads(sys.argv[2])
with tarfile.open(sys.argv[1], "w:gz" if sys.argv[1].endswith(".gz") else "w", format=tarfile.PAX_FORMAT) as t:
    for name, kind, extra in members:
        info = tarfile.TarInfo(name)
        data = None
        if kind == "file":
            data = (extra or "").encode()
            info.size = len(data)
        elif kind == "zeros":
            data = bytes(int(extra))
            info.size = len(data)
        elif kind == "dir":
            info.type = tarfile.DIRTYPE
        elif kind == "symlink":
            info.type, info.linkname = tarfile.SYMTYPE, extra
        elif kind == "hardlink":
            info.type, info.linkname = tarfile.LNKTYPE, extra
        elif kind == "fifo":
            info.type = tarfile.FIFOTYPE
        t.addfile(info, io.BytesIO(data) if data is not None else None)
`;
  execFileSync("python3", ["-c", script, file, JSON.stringify(members.map(([n, k, e]) => [n, k, e ?? null]))]);
  return file;
}

async function refusal(file: string, limits = SOURCE_ARCHIVE_LIMITS): Promise<{ message: string; dir: string }> {
  const dir = mkdtempSync(join(work, "into-"));
  const error = await unpackSources(file, dir, limits).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, "the archive should have been refused").toBeInstanceOf(SourceArchiveRefused);
  return { message: (error as Error).message, dir };
}

describe("a source archive unpacked for cloc", () => {
  it("writes its files and folders, gzip or not", async () => {
    for (const gz of [false, true]) {
      const dir = mkdtempSync(join(work, "ok-"));
      const file = archive(
        `ok-${gz}`,
        [
          ["src", "dir"],
          ["src/app.ts", "file", "export const a = 1;\n"],
          ["README.md", "file", "# x\n"],
        ],
        gz,
      );
      expect(await unpackSources(file, dir)).toEqual({ entries: 3, bytes: 24 });
      expect(readFileSync(join(dir, "src/app.ts"), "utf8")).toBe("export const a = 1;\n");
    }
  });

  it.each([
    ["a symbolic link", [["src/evil", "symlink", "/etc/passwd"]], /"src\/evil" is a SymbolicLink: a source archive holds only files and folders/],
    [
      "a hard link",
      [
        ["a.ts", "file", "x"],
        ["b.ts", "hardlink", "a.ts"],
      ],
      /"b\.ts" is a Link/,
    ],
    ["a FIFO (cloc would hang reading it)", [["src/pipe.ts", "fifo"]], /"src\/pipe\.ts" is a FIFO/],
    ["an absolute name", [["/tmp/sfbench-unpack-escape.ts", "file", "x"]], /names must be relative, without "\.\."/],
    ["a name with ..", [["src/../../escape.ts", "file", "x"]], /names must be relative, without "\.\."/],
    ["a newline in a name (it would split cloc's list of files)", [["src/a.ts\n/etc/passwd", "file", "x"]], /names must not hold control characters/],
  ] as const)("refuses %s, naming the rule, and writes nothing of it", async (_what, members, rule) => {
    const { message, dir } = await refusal(archive(`bad-${_what.replace(/\W+/g, "-")}`, members as unknown as [string, "file"][]));
    expect(message).toMatch(/^source archive refused: /);
    expect(message).toMatch(rule);
    expect(readdirSync(dir).filter((f) => f !== "a.ts")).toEqual([]);
    expect(existsSync("/tmp/sfbench-unpack-escape.ts")).toBe(false);
  });

  it("refuses more entries or bytes than allowed, and a gzip bomb, before unpacking it", async () => {
    const many = archive(
      "many",
      Array.from({ length: 6 }, (_, i) => [`f${i}.ts`, "file", "x"] as [string, "file", string]),
    );
    expect((await refusal(many, { ...SOURCE_ARCHIVE_LIMITS, entries: 5 })).message).toMatch(/more than 5 entries/);
    const big = archive("big", [["big.ts", "file", "y".repeat(4096)]]);
    expect((await refusal(big, { ...SOURCE_ARCHIVE_LIMITS, bytes: 1024 })).message).toMatch(/more than 1024 bytes of files \("big\.ts" makes 4096\)/);
    // 8 MiB of zeros gzip to a few KiB: refused by the inflation ratio long before the bytes cap
    const bomb = archive("bomb", [["zeros.ts", "zeros", String(8 * 2 ** 20)]], true);
    const { message } = await refusal(bomb, { ...SOURCE_ARCHIVE_LIMITS, ratio: 50 });
    expect(message).toMatch(/^source archive refused: it inflates more than 50 times its size \(max decompression ratio exceeded/);
  });
});
