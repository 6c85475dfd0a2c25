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
 */
import { createHash } from "node:crypto";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DEBIAN_BASE, ensureBaseImages, imageExists, podman, podmanHome } from "@sfbench/provider-container";
import { withLock } from "@sfbench/services";

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

/** The stand-in for each public image the program names. */
export const STANDINS: Record<string, string> = { "postgres:17": POSTGRES_STANDIN };

/** Builds the services' stand-ins (apt inside the build: the mirror is reachable, the registries are not); idempotent, rebuilt when this file's recipe changes. */
export async function ensureStandins(onProgress?: (m: string) => void): Promise<void> {
  await ensureBaseImages(onProgress);
  await withLock("kube-play-standins", BUILD_TIMEOUT_MS, async () => {
    if ((await imageExists(POSTGRES_STANDIN)) && (await labelOf(POSTGRES_STANDIN)) === digest) return;
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
  });
}

async function labelOf(ref: string): Promise<string> {
  return (await podman(["image", "inspect", "--format", `{{ index .Labels "${DIGEST_LABEL}" }}`, ref])).stdout.trim();
}
