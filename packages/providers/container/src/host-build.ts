/**
 * A target's host build in its image. The JVM and Dapr targets compile with
 * Maven or build Dapr's sidecar from source: inside `podman build
 * --network=none` that would need Maven Central or the Go module proxy and,
 * for daprd, many minutes of compiling without the host's build cache. The
 * host already builds them (target.json `build`, cached under
 * .sfbench/build/<name>/ by provider-local), with the same command the
 * Dockerfile's build stage runs.
 *
 * A Dockerfile opts in by declaring `ARG BUILD_FROM=build` and two stages
 * that leave the same files in /out: `build` (from source, what a registry
 * build runs) and `prebuilt` (copies them from the `host-build` build
 * context); the image's stages copy from `FROM ${BUILD_FROM}`. `sfbench image
 * build` runs the host build first, passes its directory as `host-build` and
 * BUILD_FROM=prebuilt, and the unused `build` stage is skipped (podman's
 * --skip-unused-stages is on by default, as BuildKit skips it), so nothing is
 * fetched or compiled inside the build.
 */
import { ensureBuilt } from "@sfbench/provider-local";
import { TargetError, type BundledTarget } from "@sfbench/catalogue";

export const BUILD_FROM_ARG = "BUILD_FROM";
/** The stage a Dockerfile copies the host build's files into /out with. */
const PREBUILT_STAGE = "prebuilt";
/** The build context the prebuilt stage copies from. */
const HOST_BUILD_CONTEXT = "host-build";

export interface HostBuild {
  /** podman build flags: the host build's directory as a build context, BUILD_FROM=prebuilt */
  flags: string[];
  /** the host build's cache key (its command and inputs), part of the image's digest */
  key: string;
}

/** Runs the host build of a target whose Dockerfile declares BUILD_FROM (cached: at once when current); undefined for any other. */
export async function hostBuild(
  target: BundledTarget,
  declaredArgs: string[],
  opts: { targetsRoot?: string; onProgress?: (m: string) => void },
): Promise<HostBuild | undefined> {
  if (!declaredArgs.includes(BUILD_FROM_ARG)) return undefined;
  const built = await ensureBuilt(target.name, {
    ...(opts.targetsRoot ? { targetsRoot: opts.targetsRoot } : {}),
    ...(opts.onProgress ? { onProgress: opts.onProgress } : {}),
  });
  if (!built)
    throw new TargetError(
      `${target.name}'s Dockerfile declares ARG ${BUILD_FROM_ARG} (its image takes the host build's files) but its target.json declares no build`,
    );
  return { flags: ["--build-context", `${HOST_BUILD_CONTEXT}=${built.dir}`, "--build-arg", `${BUILD_FROM_ARG}=${PREBUILT_STAGE}`], key: built.key };
}
