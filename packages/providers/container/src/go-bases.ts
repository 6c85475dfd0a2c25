/**
 * Local stand-ins for the Go targets' base images (golang:1.26-bookworm to
 * build, gcr.io/distroless/static-debian12:nonroot or, for binaries linked
 * against glibc, gcr.io/distroless/base-debian12:nonroot to run), since no
 * registry is reachable here.
 *
 * - Go: the Debian stand-in plus this machine's Go toolchain (its GOROOT, the
 *   same minor version the real tag names, checked), GOPATH=/go as in the
 *   official image.
 * - Static: an image from scratch with what distroless/static holds that a
 *   static binary uses: the CA certificates, /tmp, and the `nonroot` user
 *   (uid 65532), whom it runs as.
 * - Base (glibc): what distroless/base adds to static is Debian 12's C
 *   library, so its stand-in is the Debian stand-in (the same bookworm glibc
 *   this machine's binaries link against) with the CA certificates and the
 *   `nonroot` user, whom it runs as.
 *
 * Each is kept in the machine's store (image-store.ts) under what decides it
 * (the Go version; for static and base, the digest of their recipe and the CA
 * bundle, on top of the Debian key), so a fresh clone loads them.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { MissingPrerequisiteError } from "@sfbench/services";
import { BUILD_TIMEOUT_MS, DEBIAN_BASE, debianKey, ensureDebian } from "./bases.ts";
import { ensureStoredImage } from "./image-store.ts";
import { podman, podmanHome } from "./podman.ts";

/** The Go minor version of the real base (golang:1.26-bookworm) the stand-in replaces. */
export const GO_MINOR = "1.26";
export const GO_BASE = `localhost/sfbench-base/golang:${GO_MINOR}-bookworm`;
export const STATIC_BASE = "localhost/sfbench-base/distroless-static:debian12-nonroot";
export const GLIBC_BASE = "localhost/sfbench-base/distroless-base:debian12-nonroot";
const GO_LABEL = "org.sfbench.go-version";
/** The digest of a stand-in's recipe (its Containerfile and the files it copies): the key it is stored under. */
const RECIPE_LABEL = "org.sfbench.recipe-digest";
/** uid and gid of distroless's `nonroot` user. */
const NONROOT_UID = 65532;
const CA_BUNDLE = "/etc/ssl/certs/ca-certificates.crt";

/** This machine's Go: its version ("go1.26.8") and GOROOT, from `go env` on PATH (as a target's `build` finds it). */
export function hostGo(): { version: string; goroot: string } {
  try {
    const [version, goroot] = execFileSync("go", ["env", "GOVERSION", "GOROOT"], { encoding: "utf8" }).trim().split("\n");
    return { version: version!, goroot: goroot! };
  } catch {
    throw new MissingPrerequisiteError("go not found on PATH: the local Go base image copies this machine's Go toolchain (install Go)");
  }
}

async function build(ref: string, ctx: string, lines: string[]): Promise<void> {
  writeFileSync(join(ctx, "Containerfile"), [...lines, ""].join("\n"));
  try {
    await podman(["build", "--network=none", "-t", ref, "-f", join(ctx, "Containerfile"), ctx], { timeoutMs: BUILD_TIMEOUT_MS });
  } finally {
    rmSync(ctx, { recursive: true, force: true });
  }
}

const freshDir = (name: string) => {
  const dir = join(podmanHome(), "bases", name);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  return dir;
};

const progress = (onProgress?: (m: string) => void) => (onProgress ? { onProgress } : {});

export async function ensureGo(onProgress?: (m: string) => void): Promise<void> {
  const { version, goroot } = hostGo();
  await ensureStoredImage({ ref: GO_BASE, key: version, label: GO_LABEL }, () => buildGo(version, goroot, onProgress), progress(onProgress));
}

async function buildGo(version: string, goroot: string, onProgress?: (m: string) => void): Promise<void> {
  if (!version.startsWith(`go${GO_MINOR}.`) && version !== `go${GO_MINOR}`)
    throw new MissingPrerequisiteError(`the local ${GO_BASE} image copies this machine's Go, which is ${version}, not ${GO_MINOR}: install Go ${GO_MINOR}`);
  await ensureDebian(onProgress);
  const ctx = freshDir("go-context");
  cpSync(goroot, join(ctx, "go"), { recursive: true });
  onProgress?.(`building ${GO_BASE} from ${DEBIAN_BASE} with this machine's ${version}`);
  await build(GO_BASE, ctx, [
    `FROM ${DEBIAN_BASE}`,
    "COPY go /usr/local/go",
    "ENV GOPATH=/go PATH=/go/bin:/usr/local/go/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
    `ENV GOLANG_VERSION=${version.slice(2)}`,
    "RUN mkdir -p /go/src /go/bin && chmod -R 1777 /go",
    `LABEL ${GO_LABEL}=${version}`,
    "WORKDIR /go",
  ]);
}

const PASSWD = `root:x:0:0:root:/root:/sbin/nologin\nnobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin\nnonroot:x:${NONROOT_UID}:${NONROOT_UID}:nonroot:/home/nonroot:/sbin/nologin\n`;
const GROUP = `root:x:0:\nnobody:x:65534:\nnonroot:x:${NONROOT_UID}:\n`;
const STATIC_RECIPE = ["FROM scratch", "COPY rootfs /", `USER ${NONROOT_UID}:${NONROOT_UID}`, "WORKDIR /home/nonroot"];
const GLIBC_RECIPE = [
  `FROM ${DEBIAN_BASE}`,
  "COPY ca-certificates.crt /etc/ssl/certs/ca-certificates.crt",
  `RUN groupadd --gid ${NONROOT_UID} nonroot && useradd --uid ${NONROOT_UID} --gid nonroot --home-dir /home/nonroot --create-home --shell /sbin/nologin nonroot`,
  `USER ${NONROOT_UID}:${NONROOT_UID}`,
  "WORKDIR /home/nonroot",
];

const recipeKey = (...parts: (string | Buffer)[]) => {
  const h = createHash("sha256");
  for (const p of parts) h.update(p).update("\0");
  return h.digest("hex").slice(0, 32);
};

function requireCaBundle(which: string): Buffer {
  if (!existsSync(CA_BUNDLE)) throw new MissingPrerequisiteError(`${CA_BUNDLE} not found (the local ${which} base image copies it): install ca-certificates`);
  return readFileSync(CA_BUNDLE);
}

export async function ensureStatic(onProgress?: (m: string) => void): Promise<void> {
  const ca = requireCaBundle("static");
  const key = recipeKey(...STATIC_RECIPE, PASSWD, GROUP, ca);
  await ensureStoredImage({ ref: STATIC_BASE, key, label: RECIPE_LABEL }, () => buildStatic(key, ca, onProgress), progress(onProgress));
}

async function buildStatic(key: string, ca: Buffer, onProgress?: (m: string) => void): Promise<void> {
  const ctx = freshDir("static-context");
  const root = join(ctx, "rootfs");
  mkdirSync(join(root, "etc", "ssl", "certs"), { recursive: true });
  mkdirSync(join(root, "tmp"), { recursive: true });
  mkdirSync(join(root, "home", "nonroot"), { recursive: true });
  writeFileSync(join(root, "etc", "ssl", "certs", "ca-certificates.crt"), ca);
  writeFileSync(join(root, "etc", "passwd"), PASSWD);
  writeFileSync(join(root, "etc", "group"), GROUP);
  onProgress?.(`building ${STATIC_BASE} from scratch`);
  await build(STATIC_BASE, ctx, [...STATIC_RECIPE, `LABEL ${RECIPE_LABEL}=${key}`]);
}

export async function ensureGlibcRuntime(onProgress?: (m: string) => void): Promise<void> {
  const ca = requireCaBundle("glibc runtime");
  const key = recipeKey(debianKey(), ...GLIBC_RECIPE, ca);
  await ensureStoredImage({ ref: GLIBC_BASE, key, label: RECIPE_LABEL }, () => buildGlibcRuntime(key, ca, onProgress), progress(onProgress));
}

async function buildGlibcRuntime(key: string, ca: Buffer, onProgress?: (m: string) => void): Promise<void> {
  await ensureDebian(onProgress);
  const ctx = freshDir("glibc-context");
  writeFileSync(join(ctx, "ca-certificates.crt"), ca);
  onProgress?.(`building ${GLIBC_BASE} from ${DEBIAN_BASE}`);
  await build(GLIBC_BASE, ctx, [...GLIBC_RECIPE, `LABEL ${RECIPE_LABEL}=${key}`]);
}
