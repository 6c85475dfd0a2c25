/**
 * Unpacks a team's source archive for cloc, with node-tar, checking every
 * entry itself as it comes: the worker does not rely on the portal's check at
 * upload (another reader, which a crafted archive could make disagree with
 * this one). Only regular files and folders under relative names of printable
 * characters are written (a link, a FIFO or a device could lead cloc out of
 * the folder or hang it; a newline would split cloc's list of files); past the
 * first entry that breaks a rule, or past the caps on entries, bytes and the
 * inflation ratio, the archive is refused whole and nothing more is read.
 */
import { createReadStream } from "node:fs";
import { Unpack, type ReadEntry } from "tar";

export interface SourceArchiveLimits {
  /** files and folders */
  entries: number;
  /** bytes of all files, as their headers declare them (a decompression bomb is refused at its header) */
  bytes: number;
  /** unpacked bytes per compressed byte: a gzip of zeros goes far past what sources give */
  ratio: number;
}

export const SOURCE_ARCHIVE_LIMITS: SourceArchiveLimits = { entries: 20_000, bytes: 256 * 2 ** 20, ratio: 200 };

export class SourceArchiveRefused extends Error {}

/** Why an entry may not be unpacked, or undefined when it may. */
export function entryProblem(path: string, type: string): string | undefined {
  if (type !== "File" && type !== "OldFile" && type !== "Directory")
    return `${JSON.stringify(path)} is a ${type}: a source archive holds only files and folders`;
  if (/[\u0000-\u001f\u007f-\u009f]/.test(path)) return `${JSON.stringify(path)}: names must not hold control characters`;
  if (path.startsWith("/") || path.split("/").includes("..")) return `${JSON.stringify(path)}: names must be relative, without ".."`;
  return undefined;
}

/** Unpacks `file` (tar, gzip or not) into `dir`; throws SourceArchiveRefused naming the rule an entry broke. */
export function unpackSources(file: string, dir: string, limits: SourceArchiveLimits = SOURCE_ARCHIVE_LIMITS): Promise<{ entries: number; bytes: number }> {
  return new Promise((resolve, reject) => {
    let entries = 0;
    let bytes = 0;
    let refused: string | undefined;
    const input = createReadStream(file);
    const unpack: Unpack = new Unpack({
      cwd: dir,
      strict: true,
      preservePaths: false,
      preserveOwner: false,
      maxDecompressionRatio: limits.ratio,
      filter: (path, entry) => {
        const e = entry as ReadEntry;
        entries += 1;
        bytes += e.size ?? 0;
        refused ??=
          entryProblem(path, e.type) ??
          (entries > limits.entries ? `more than ${limits.entries} entries` : undefined) ??
          (bytes > limits.bytes ? `more than ${limits.bytes} bytes of files (${JSON.stringify(path)} makes ${bytes})` : undefined);
        if (refused === undefined) return true;
        input.destroy();
        unpack.abort(new SourceArchiveRefused(refused));
        return false;
      },
    });
    const fail = (e: Error) => {
      // node-tar stops inflating past the ratio itself
      if (!refused && /decompression ratio/.test(e.message)) refused = `it inflates more than ${limits.ratio} times its size (${e.message})`;
      reject(new SourceArchiveRefused(refused ? `source archive refused: ${refused}` : `source archive unreadable: ${e.message}`));
    };
    input.on("error", fail);
    unpack.on("error", fail);
    unpack.on("close", () => (refused ? fail(new Error(refused)) : resolve({ entries, bytes })));
    input.pipe(unpack);
  });
}
