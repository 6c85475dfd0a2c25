/** Where uploads go and how big each kind may be (env.ts), in one object that tests can replace. */
import { join } from "node:path";
import type { SourceArchiveLimits } from "@sfbench/core/source-archive";
import { paths } from "@sfbench/services";
import { env } from "../../env.ts";

export const UPLOAD_KINDS = ["image-archive", "source-archive"] as const;
export type UploadKindName = (typeof UPLOAD_KINDS)[number];

export interface UploadSettings {
  dataDir: string;
  maxBytes: Record<UploadKindName, number>;
  /** unclaimed uploads a user may hold, and after how many hours one is deleted (they bound what a user can leave on disk) */
  unclaimed?: { max: number; hours: number };
  /** image archives kept per system: its newest this many versions' (SFBENCH_KEEP_IMAGE_ARCHIVES); older ones are pruned when it submits another */
  keepImageArchives?: number;
  /** the caps a source archive is read with; the worker's (SOURCE_ARCHIVE_LIMITS) unless a test lowers them */
  sourceArchiveLimits?: SourceArchiveLimits;
}

const MIB = 1024 * 1024;

export const defaultUploadSettings = (): UploadSettings => ({
  dataDir: env.SFBENCH_DATA_DIR ?? join(paths.home, "portal"),
  maxBytes: { "image-archive": env.SFBENCH_IMAGE_ARCHIVE_MAX_MIB * MIB, "source-archive": env.SFBENCH_SOURCE_ARCHIVE_MAX_MIB * MIB },
  unclaimed: { max: env.SFBENCH_UNCLAIMED_UPLOADS, hours: env.SFBENCH_UNCLAIMED_UPLOAD_HOURS },
  keepImageArchives: env.SFBENCH_KEEP_IMAGE_ARCHIVES,
});

/** "4 GiB", "64 MiB", "1.5 KiB": a limit as people read it */
export function formatBytes(n: number): string {
  const units = ["bytes", "KiB", "MiB", "GiB", "TiB"];
  let i = 0;
  let v = n;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${Number.isInteger(v) ? v : v.toFixed(1)} ${units[i]}`;
}
