/**
 * Unpacks a team's source archive for cloc with node-tar, checking every entry
 * itself as it comes (`readSourceArchive`, the same rules and the same parser
 * as the portal's check at upload): the worker does not rely on that check
 * having run. Only regular files and folders under relative names of
 * printable characters are written (a link, a FIFO or a device could lead
 * cloc out of the folder or hang it; a newline would split cloc's list of
 * files); past the first entry that breaks a rule, or past the caps, the
 * archive is refused whole and nothing more is read.
 */
import { readSourceArchive, SOURCE_ARCHIVE_LIMITS, type SourceArchiveLimits } from "@sfbench/core/source-archive";
import { Unpack } from "tar";

export { SOURCE_ARCHIVE_LIMITS, SourceArchiveRefused, type SourceArchiveLimits } from "@sfbench/core/source-archive";

/** Unpacks `file` (tar, gzip or not) into `dir`; throws SourceArchiveRefused naming the rule an entry broke. */
export async function unpackSources(
  file: string,
  dir: string,
  limits: SourceArchiveLimits = SOURCE_ARCHIVE_LIMITS,
): Promise<{ entries: number; bytes: number }> {
  const { entries, bytes } = await readSourceArchive(
    file,
    (options) => new Unpack({ ...options, cwd: dir, preservePaths: false, preserveOwner: false }),
    limits,
  );
  return { entries, bytes };
}
