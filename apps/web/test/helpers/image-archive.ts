/**
 * Real image archives: a one-file image imported into a throw-away podman
 * store (its own --root, so the machine's images are not touched) and saved
 * as docker-archive and oci-archive, the two formats `podman save` writes.
 * podman is installed as the product installs it (apt, when missing): on a
 * new machine these tests may be the first to need it.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ensurePodman } from "@sfbench/provider-container";

export interface ImageArchives {
  dir: string;
  docker: string;
  oci: string;
  cleanup(): void;
}

export async function saveImage(reference: string, content = "hello\n"): Promise<ImageArchives> {
  await ensurePodman();
  const dir = mkdtempSync(join(tmpdir(), "sfbench-image-"));
  const podman = (...args: string[]) =>
    execFileSync("podman", ["--root", join(dir, "root"), "--runroot", join(dir, "run"), "--storage-driver", "vfs", ...args], { stdio: "pipe" });
  writeFileSync(join(dir, "hello.txt"), content);
  execFileSync("tar", ["-cf", join(dir, "rootfs.tar"), "-C", dir, "hello.txt"]);
  podman("import", join(dir, "rootfs.tar"), reference);
  const docker = join(dir, "docker.tar");
  const oci = join(dir, "oci.tar");
  podman("save", "-o", docker, reference);
  podman("save", "--format", "oci-archive", "-o", oci, reference);
  return {
    dir,
    docker,
    oci,
    cleanup: () => {
      // the vfs store holds files podman made read-only; unshare lets root remove them like podman would
      try {
        podman("rmi", "--all", "--force");
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
