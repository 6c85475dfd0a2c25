/**
 * Which local stand-in a Dockerfile's base ARG gets in `sfbench image build`
 * (the bundled Dockerfiles name their bases through these ARGs, with the
 * public image as the default, so a registry build is unchanged). A stand-in
 * is built only when a Dockerfile asks for it.
 */
import { ensureDebian, ensureNode, NODE_BASE, withBasesLock } from "./bases.ts";
import { ensureGlibcRuntime, ensureGo, ensureStatic, GLIBC_BASE, GO_BASE, STATIC_BASE } from "./go-bases.ts";
import { ensureJre, JRE_BASE } from "./jre-bases.ts";

export interface LocalBase {
  ref: string;
  ensure(onProgress?: (m: string) => void): Promise<void>;
}

export const LOCAL_BASES: Record<string, LocalBase> = {
  NODE_IMAGE: { ref: NODE_BASE, ensure: async (p) => (await ensureDebian(p), await ensureNode(p)) },
  GO_IMAGE: { ref: GO_BASE, ensure: ensureGo },
  RUNTIME_IMAGE: { ref: STATIC_BASE, ensure: ensureStatic },
  GLIBC_RUNTIME_IMAGE: { ref: GLIBC_BASE, ensure: ensureGlibcRuntime },
  JRE_IMAGE: { ref: JRE_BASE, ensure: ensureJre },
};

/** Builds the stand-ins behind `args` (ARG names) that are missing or stale; resolves ARG -> local image. */
export async function ensureLocalBases(args: string[], onProgress?: (m: string) => void): Promise<Record<string, string>> {
  const known = args.filter((a) => LOCAL_BASES[a]);
  await withBasesLock(async () => {
    for (const a of known) await LOCAL_BASES[a]!.ensure(onProgress);
  }, onProgress);
  return Object.fromEntries(known.map((a) => [a, LOCAL_BASES[a]!.ref]));
}
