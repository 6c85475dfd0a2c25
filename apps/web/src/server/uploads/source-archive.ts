/**
 * A source archive is only the files to count: regular files and folders
 * under relative names. Anything else (links, devices, absolute or `..`
 * names) is refused, so that unpacking it for cloc cannot write outside its
 * folder.
 */
import type { TarEntry } from "./tar.ts";

export type SourceArchiveCheck = { ok: true; files: number } | { ok: false; problem: string };

export function checkSourceArchive(entries: TarEntry[]): SourceArchiveCheck {
  for (const e of entries) {
    if (e.type !== "file" && e.type !== "directory") return { ok: false, problem: `it holds only files and folders; ${e.name} is a ${e.type}` };
    if (e.name.startsWith("/") || e.name.split("/").includes("..")) return { ok: false, problem: `${e.name}: names must be relative, without ".."` };
  }
  const files = entries.filter((e) => e.type === "file").length;
  if (!files) return { ok: false, problem: "it holds no file" };
  return { ok: true, files };
}
