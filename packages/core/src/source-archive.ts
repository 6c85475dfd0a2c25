/**
 * What a team's source archive may hold, read by one parser (node-tar) in both
 * places that read it: the portal checks it at upload, the worker unpacks it
 * for cloc. Two readers could disagree about a crafted archive (a pax header
 * the one applies and the other does not, a type the one skips), so both go
 * through `readSourceArchive` with the same rules: only regular files and
 * folders, under relative names of printable characters without `..`, within
 * caps on entries, declared bytes, the inflation ratio and the size of an
 * extended header. Past the first entry that breaks one, the archive is
 * refused whole and nothing more is read.
 */
import { createReadStream } from "node:fs";
import type { Parser, ReadEntry } from "tar";

export interface SourceArchiveLimits {
  /** files and folders */
  entries: number;
  /** bytes of all files, as their headers declare them (a decompression bomb is refused at its header) */
  bytes: number;
  /** unpacked bytes per compressed byte: a gzip of zeros goes far past what sources give */
  ratio: number;
  /** bytes of one pax or GNU long-name header; node-tar would skip a bigger one silently and read the next entry by its plain name */
  metaBytes: number;
}

export const SOURCE_ARCHIVE_LIMITS: SourceArchiveLimits = { entries: 20_000, bytes: 256 * 2 ** 20, ratio: 200, metaBytes: 64 * 1024 };

/** Which rule refused an archive: the caps are "too large", the rest "not what a source archive may hold", "unreadable" is not a tar. */
export type SourceArchiveRule = "type" | "name" | "entries" | "bytes" | "ratio" | "meta" | "empty" | "unreadable";

export const SIZE_RULES: ReadonlySet<SourceArchiveRule> = new Set(["entries", "bytes", "ratio", "meta"]);

export class SourceArchiveRefused extends Error {
  constructor(
    readonly rule: SourceArchiveRule,
    /** what was wrong, without the "source archive refused: " in front of the message */
    readonly problem: string,
  ) {
    super(rule === "unreadable" ? `source archive unreadable: ${problem}` : `source archive refused: ${problem}`);
  }
}

/** Why an entry may not be unpacked, or undefined when it may. */
export function entryProblem(path: string, type: string): { rule: SourceArchiveRule; problem: string } | undefined {
  if (type !== "File" && type !== "OldFile" && type !== "Directory")
    return { rule: "type", problem: `${JSON.stringify(path)} is a ${type}: a source archive holds only files and folders` };
  if (/[\u0000-\u001f\u007f-\u009f]/.test(path)) return { rule: "name", problem: `${JSON.stringify(path)}: names must not hold control characters` };
  if (path.startsWith("/") || path.split("/").includes("..")) return { rule: "name", problem: `${JSON.stringify(path)}: names must be relative, without ".."` };
  return undefined;
}

/** The options both readers are made with: what the filter lets through is all they see. */
export type SourceArchiveReaderOptions = Required<
  Pick<NonNullable<ConstructorParameters<typeof Parser>[0]>, "strict" | "maxDecompressionRatio" | "maxMetaEntrySize" | "filter">
>;

/**
 * Streams `file` (tar; gzip, or any compression node-tar recognises) through
 * the reader `make` returns (a `Parser` to check, an `Unpack` to unpack),
 * applying every rule to every entry; throws SourceArchiveRefused naming the
 * rule the first bad entry broke.
 */
export function readSourceArchive(
  file: string,
  make: (options: SourceArchiveReaderOptions) => Parser,
  limits: SourceArchiveLimits = SOURCE_ARCHIVE_LIMITS,
): Promise<{ entries: number; files: number; bytes: number }> {
  return new Promise((resolve, reject) => {
    let entries = 0;
    let files = 0;
    let bytes = 0;
    let refused: SourceArchiveRefused | undefined;
    const input = createReadStream(file);
    const refuse = (rule: SourceArchiveRule, problem: string) => {
      refused ??= new SourceArchiveRefused(rule, problem);
      input.destroy();
      reader.abort(refused);
    };
    const reader = make({
      strict: true,
      maxDecompressionRatio: limits.ratio,
      maxMetaEntrySize: limits.metaBytes,
      filter: (path, entry) => {
        if (refused) return false;
        const e = entry as ReadEntry;
        entries += 1;
        if (e.type !== "Directory") files += 1;
        bytes += e.size ?? 0;
        const bad =
          entryProblem(path, e.type) ??
          (entries > limits.entries ? { rule: "entries" as const, problem: `more than ${limits.entries} entries (files and folders)` } : undefined) ??
          (bytes > limits.bytes
            ? { rule: "bytes" as const, problem: `more than ${limits.bytes} bytes of files (${JSON.stringify(path)} makes ${bytes})` }
            : undefined);
        if (!bad) return true;
        refuse(bad.rule, bad.problem);
        return false;
      },
    });
    // node-tar skips, without asking the filter, an entry of a type it does not know and an extended header past maxMetaEntrySize
    reader.on("ignoredEntry", (entry: ReadEntry) => {
      if (refused) return;
      if (entry.meta) refuse("meta", `an extended header (${entry.type}) of ${entry.size} bytes, more than ${limits.metaBytes}`);
      else refuse("type", `${JSON.stringify(entry.path)} is of a type node-tar does not know: a source archive holds only files and folders`);
    });
    let settled = false;
    const fail = (e: Error) => {
      if (settled) return;
      settled = true;
      if (e instanceof SourceArchiveRefused) return reject(e);
      // node-tar stops inflating past the ratio itself
      if (!refused && /decompression ratio/.test(e.message))
        refused = new SourceArchiveRefused("ratio", `it inflates more than ${limits.ratio} times its size (${e.message})`);
      reject(refused ?? new SourceArchiveRefused("unreadable", e.message));
    };
    input.on("error", fail);
    reader.on("error", fail);
    reader.on("close", () => {
      if (refused) fail(refused);
      else if (!files) fail(new SourceArchiveRefused("empty", "it holds no file"));
      else if (!settled) {
        settled = true;
        resolve({ entries, files, bytes });
      }
    });
    input.pipe(reader);
  });
}
