/**
 * The local stand-in for the JVM targets' runtime base (eclipse-temurin:17-jre),
 * since no registry is reachable here: the Debian stand-in plus this machine's
 * own Java 17 (the `java` on PATH, as a target's Maven build and its local
 * start command find it), copied to /opt/java/openjdk with JAVA_HOME and PATH
 * set as in the official image. The copy follows symbolic links (Debian's JDK
 * keeps its configuration and CA store under /etc and links to them), leaving
 * out links that point nowhere (its source archive, when not installed).
 *
 * Rebuilt when the machine's Java version changes (a label records it), and
 * kept in the machine's store (image-store.ts) under that version, so a fresh
 * clone loads it.
 */
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { MissingPrerequisiteError } from "@sfbench/services";
import { BUILD_TIMEOUT_MS, DEBIAN_BASE, ensureDebian } from "./bases.ts";
import { ensureStoredImage } from "./image-store.ts";
import { podman, podmanHome } from "./podman.ts";

/** The Java feature version of the real base (eclipse-temurin:17-jre) the stand-in replaces. */
export const JAVA_FEATURE = 17;
export const JRE_BASE = `localhost/sfbench-base/eclipse-temurin:${JAVA_FEATURE}-jre`;
const JAVA_LABEL = "org.sfbench.java-version";
/** Where the official Temurin images keep the runtime. */
const JAVA_HOME = "/opt/java/openjdk";

/** This machine's Java: its home (from the `java` on PATH) and version (JAVA_VERSION of its `release` file). */
export function hostJava(): { home: string; version: string } {
  let java: string;
  try {
    java = execFileSync("sh", ["-c", "command -v java"], { encoding: "utf8" }).trim();
  } catch {
    throw new MissingPrerequisiteError(
      `java not found on PATH: the local ${JRE_BASE} image copies this machine's Java ${JAVA_FEATURE} (apt-get install openjdk-${JAVA_FEATURE}-jre-headless)`,
    );
  }
  const home = dirname(dirname(realpathSync(java)));
  const release = join(home, "release");
  const version = existsSync(release) ? /^JAVA_VERSION="([^"]+)"/m.exec(readFileSync(release, "utf8"))?.[1] : undefined;
  if (!version) throw new MissingPrerequisiteError(`${home}/release names no JAVA_VERSION: cannot tell which Java the local ${JRE_BASE} image would copy`);
  return { home, version };
}

export async function ensureJre(onProgress?: (m: string) => void): Promise<void> {
  const { home, version } = hostJava();
  await ensureStoredImage({ ref: JRE_BASE, key: version, label: JAVA_LABEL }, () => buildJre(home, version, onProgress), onProgress ? { onProgress } : {});
}

async function buildJre(home: string, version: string, onProgress?: (m: string) => void): Promise<void> {
  if (Number(version.split(".")[0]) !== JAVA_FEATURE)
    throw new MissingPrerequisiteError(
      `the local ${JRE_BASE} image copies this machine's Java, which is ${version} (${home}), not ${JAVA_FEATURE}: install Java ${JAVA_FEATURE} and make it the default java`,
    );
  await ensureDebian(onProgress);
  const ctx = join(podmanHome(), "bases", "jre-context");
  rmSync(ctx, { recursive: true, force: true });
  mkdirSync(ctx, { recursive: true });
  cpSync(home, join(ctx, "openjdk"), { recursive: true, dereference: true, filter: (src) => existsSync(src) });
  writeFileSync(
    join(ctx, "Containerfile"),
    [
      `FROM ${DEBIAN_BASE}`,
      `COPY openjdk ${JAVA_HOME}`,
      `ENV JAVA_HOME=${JAVA_HOME} PATH=${JAVA_HOME}/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin`,
      `ENV JAVA_VERSION=${version}`,
      `LABEL ${JAVA_LABEL}=${version}`,
      "",
    ].join("\n"),
  );
  onProgress?.(`building ${JRE_BASE} from ${DEBIAN_BASE} with this machine's Java ${version}`);
  try {
    await podman(["build", "--network=none", "-t", JRE_BASE, "-f", join(ctx, "Containerfile"), ctx], { timeoutMs: BUILD_TIMEOUT_MS });
  } finally {
    rmSync(ctx, { recursive: true, force: true });
  }
}
