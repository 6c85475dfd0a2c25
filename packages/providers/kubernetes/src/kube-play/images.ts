/**
 * The images the program names, as the project's podman storage holds them:
 * no registry is reachable here, so the services' public images get local
 * stand-ins built on provider-container's Debian base (as the targets' Node
 * and Go bases are), and a bundled target's image is the one `sfbench image
 * build` tags.
 *
 * The PostgreSQL stand-in is Debian bookworm's PostgreSQL 15 (the apt mirror
 * this machine reaches has no 17) behind an entry script that keeps the part
 * of the official image's contract the program uses: `PGDATA`,
 * `POSTGRES_HOST_AUTH_METHOD=trust`, arguments given to the container passed
 * to `postgres` (the durable settings), listening on every address, a fresh
 * cluster initialised on an empty volume, the server running as `postgres`.
 *
 * The k6 runner stand-in is this machine's own k6 (the one every local run
 * uses, `k6Path()`) copied onto the same base, with the official image's
 * entry point and user: the runner pods then run the very binary the
 * archive was made with, and the image is rebuilt when that binary changes.
 *
 * Both are kept in the machine's image store (provider-container's
 * ensureStoredImage) under the digest that decides their build, so a fresh
 * clone loads them instead of running apt or copying k6 again.
 */
import { createHash } from "node:crypto";
import { createReadStream, copyFileSync, mkdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DEBIAN_BASE, ensureBaseImages, ensureStoredImage, podman, podmanHome } from "@sfbench/provider-container";
import { k6Path, withLock } from "@sfbench/services";
import { RunStackConfig } from "@sfbench/infra-pulumi/config";

const PG_MAJOR = 15;
export const POSTGRES_STANDIN = `localhost/sfbench-base/postgres:${PG_MAJOR}-bookworm`;
const DIGEST_LABEL = "org.sfbench.standin-digest";
const BUILD_TIMEOUT_MS = 1_200_000;

const ENTRYPOINT = `#!/bin/sh
# The official postgres image's contract as far as sfbench's program uses it.
set -e
case "$1" in -*|"") set -- postgres "$@" ;; esac
if [ "$1" = postgres ] && [ "$(id -u)" = 0 ]; then
  mkdir -p "$PGDATA" /var/run/postgresql
  chown -R postgres:postgres "$PGDATA" /var/run/postgresql
  chmod 700 "$PGDATA"
  exec setpriv --reuid=postgres --regid=postgres --init-groups "$0" "$@"
fi
if [ "$1" = postgres ] && [ ! -s "$PGDATA/PG_VERSION" ]; then
  initdb --username=postgres --auth="\${POSTGRES_HOST_AUTH_METHOD:-trust}" -D "$PGDATA"
  echo "host all all all \${POSTGRES_HOST_AUTH_METHOD:-trust}" >> "$PGDATA/pg_hba.conf"
fi
if [ "$1" = postgres ]; then set -- "$@" -c listen_addresses='*'; fi
exec "$@"
`;

const CONTAINERFILE = [
  `FROM ${DEBIAN_BASE}`,
  `ENV PATH=/usr/lib/postgresql/${PG_MAJOR}/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin PGDATA=/var/lib/postgresql/data`,
  // the package's own cluster (/var/lib/postgresql/15/main) is not used: the entry script makes one in PGDATA
  `RUN apt-get update && apt-get install -y --no-install-recommends postgresql-${PG_MAJOR} && rm -rf /var/lib/apt/lists/* /var/lib/postgresql/${PG_MAJOR} /etc/postgresql`,
  "COPY entrypoint.sh /usr/local/bin/docker-entrypoint.sh",
  'ENTRYPOINT ["/usr/local/bin/docker-entrypoint.sh"]',
  'CMD ["postgres"]',
  "STOPSIGNAL SIGINT",
  "EXPOSE 5432",
].join("\n");

const digest = createHash("sha256").update(CONTAINERFILE).update(ENTRYPOINT).digest("hex").slice(0, 16);

/** the runner image the program's TestRun names unless told otherwise (K6Load's default), read from the program's own schema */
export const K6_RUNNER_IMAGE = RunStackConfig.shape.k6.unwrap().parse({ archiveBase64: "-" }).image;
const K6_TAG = K6_RUNNER_IMAGE.split(":")[1] ?? "latest";
export const K6_STANDIN = `localhost/sfbench-base/k6:${K6_TAG}`;

// as grafana/k6: the binary on PATH as the entry point, run as an unprivileged user from its home
const K6_CONTAINERFILE = [
  `FROM ${DEBIAN_BASE}`,
  "COPY k6 /usr/bin/k6",
  // kube play 4.3 does not make a missing WORKDIR (podman run does): the container would not start
  "RUN mkdir -p /home/k6 && chown 12345:12345 /home/k6",
  "ENV HOME=/home/k6",
  "WORKDIR /home/k6",
  "USER 12345:12345",
  'ENTRYPOINT ["k6"]',
].join("\n");

/** The stand-in for each public image the program names. */
export const STANDINS: Record<string, string> = { "postgres:17": POSTGRES_STANDIN, [K6_RUNNER_IMAGE]: K6_STANDIN };

/** Builds the stand-ins (apt inside the build: the mirror is reachable, the registries are not); idempotent, rebuilt when this file's recipe or the k6 binary changes. */
export async function ensureStandins(onProgress?: (m: string) => void): Promise<void> {
  await ensureBaseImages(onProgress);
  await ensurePostgresStandin(onProgress);
  await ensureK6Standin(onProgress);
}

async function ensurePostgresStandin(onProgress?: (m: string) => void): Promise<void> {
  await withLock("kube-play-standins", BUILD_TIMEOUT_MS, () =>
    ensureStoredImage({ ref: POSTGRES_STANDIN, key: digest, label: DIGEST_LABEL }, () => buildPostgresStandin(onProgress), progress(onProgress)),
  );
}

const progress = (onProgress?: (m: string) => void) => (onProgress ? { onProgress } : {});

async function buildPostgresStandin(onProgress?: (m: string) => void): Promise<void> {
  const ctx = join(podmanHome(), "context", "kube-play-postgres");
  rmSync(ctx, { recursive: true, force: true });
  mkdirSync(ctx, { recursive: true });
  writeFileSync(join(ctx, "Containerfile"), `${CONTAINERFILE}\nLABEL ${DIGEST_LABEL}=${digest}\n`);
  writeFileSync(join(ctx, "entrypoint.sh"), ENTRYPOINT, { mode: 0o755 });
  onProgress?.(`building ${POSTGRES_STANDIN} from ${DEBIAN_BASE} with Debian's postgresql-${PG_MAJOR}`);
  try {
    await podman(["build", "-t", POSTGRES_STANDIN, "-f", join(ctx, "Containerfile"), ctx], { timeoutMs: BUILD_TIMEOUT_MS });
  } finally {
    rmSync(ctx, { recursive: true, force: true });
  }
}

/** the k6 binary's digest, by path, size and modification time: hashing 70 MB once per process is enough */
const binaryDigests = new Map<string, string>();
async function fileDigest(file: string): Promise<string> {
  const st = statSync(file);
  const key = `${file}:${st.size}:${st.mtimeMs}`;
  const known = binaryDigests.get(key);
  if (known) return known;
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  const digest = hash.digest("hex");
  binaryDigests.set(key, digest);
  return digest;
}

/** The k6 runner stand-in with this machine's k6 in it (built with k6 if there is none yet); idempotent, rebuilt when the binary changes. */
export async function ensureK6Standin(onProgress?: (m: string) => void): Promise<string> {
  const k6 = await k6Path({ onProgress });
  const k6Digest = createHash("sha256")
    .update(K6_CONTAINERFILE)
    .update(await fileDigest(k6))
    .digest("hex")
    .slice(0, 16);
  await withLock("kube-play-standins", BUILD_TIMEOUT_MS, () =>
    ensureStoredImage({ ref: K6_STANDIN, key: k6Digest, label: DIGEST_LABEL }, () => buildK6Standin(k6, k6Digest, onProgress), progress(onProgress)),
  );
  return K6_STANDIN;
}

async function buildK6Standin(k6: string, k6Digest: string, onProgress?: (m: string) => void): Promise<void> {
  await ensureBaseImages(onProgress);
  const ctx = join(podmanHome(), "context", "kube-play-k6");
  rmSync(ctx, { recursive: true, force: true });
  mkdirSync(ctx, { recursive: true });
  writeFileSync(join(ctx, "Containerfile"), `${K6_CONTAINERFILE}\nLABEL ${DIGEST_LABEL}=${k6Digest}\n`);
  copyFileSync(k6, join(ctx, "k6"));
  onProgress?.(`building ${K6_STANDIN} from ${DEBIAN_BASE} with this machine's k6 (${k6})`);
  try {
    await podman(["build", "-t", K6_STANDIN, "-f", join(ctx, "Containerfile"), ctx], { timeoutMs: BUILD_TIMEOUT_MS });
  } finally {
    rmSync(ctx, { recursive: true, force: true });
  }
}
