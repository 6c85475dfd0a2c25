/**
 * The machine's image store on real podman, with a store of the test's own
 * (a temporary directory) and a tiny image of its own: the static stand-in
 * with a label, so a build takes a second and nothing another test uses is
 * removed. Built once, it is saved; removed from the project's storage, it is
 * loaded back without a build; a corrupt archive is removed and the image
 * built again; an unwritable store only warns; a name keeps 3 keys.
 */
import { randomUUID } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { STATIC_BASE } from "../src/go-bases.ts";
import { ensureStoredImage, imageLabel, storedArchive, type StoredImage } from "../src/image-store.ts";
import { ensureLocalBases } from "../src/local-bases.ts";
import { podman } from "../src/podman.ts";

const LABEL = "org.sfbench.test-key";
const ref = `localhost/sfbench-test/store-${randomUUID().slice(0, 8)}:1`;
const dir = mkdtempSync(join(tmpdir(), "sfbench-image-store-"));
const store = join(dir, "store");
let builds = 0;

/** Builds the test's image for `key`, counting the builds. */
async function build(key: string): Promise<void> {
  builds++;
  const ctx = join(dir, `ctx-${builds}`);
  mkdirSync(ctx, { recursive: true });
  writeFileSync(join(ctx, "Containerfile"), `FROM ${STATIC_BASE}\nLABEL ${LABEL}=${key}\n`);
  await podman(["build", "--network=none", "-t", ref, "-f", join(ctx, "Containerfile"), ctx]);
}

const ensure = (key: string, messages: string[] = [], at = store) => {
  const image: StoredImage = { ref, key, label: LABEL };
  return ensureStoredImage(image, () => build(key), { store: at, onProgress: (m) => messages.push(m) });
};

afterAll(async () => {
  await podman(["rmi", "--force", ref]).catch(() => undefined);
  rmSync(dir, { recursive: true, force: true });
});

describe("the machine's image store", () => {
  it("keeps a built image, loads it into a storage that lacks it without building, and rebuilds over a corrupt archive", async () => {
    await ensureLocalBases(["RUNTIME_IMAGE"]);
    expect(await ensure("k1")).toBe("built");
    expect(builds).toBe(1);
    const archive = storedArchive({ ref, key: "k1" }, store);
    expect(existsSync(archive)).toBe(true);
    expect(await ensure("k1")).toBe("current");

    await podman(["rmi", "--force", ref]);
    const messages: string[] = [];
    expect(await ensure("k1", messages)).toBe("loaded");
    expect(builds).toBe(1);
    expect(messages).toEqual([`loading ${ref} from the machine's store (${archive})`]);
    expect(await imageLabel(ref, LABEL)).toBe("k1");

    await podman(["rmi", "--force", ref]);
    writeFileSync(archive, "not an image archive");
    const warned: string[] = [];
    expect(await ensure("k1", warned)).toBe("built");
    expect(builds).toBe(2);
    expect(warned.some((m) => m.startsWith(`warning: removing ${archive}`))).toBe(true);
    // the corrupt archive gave way to the new build's
    await podman(["rmi", "--force", ref]);
    expect(await ensure("k1")).toBe("loaded");
    expect(builds).toBe(2);
  });

  it("only warns when the store cannot be written, and keeps the 3 most recently used keys of a name", async () => {
    const file = join(dir, "a-file");
    writeFileSync(file, "");
    const warned: string[] = [];
    expect(await ensure("k2", warned, join(file, "store"))).toBe("built");
    expect(warned.some((m) => m.startsWith(`warning: could not keep ${ref} in the machine's store`))).toBe(true);

    for (const key of ["k2", "k3", "k4"]) expect(await ensure(key)).toMatch(/^(built|current)$/);
    expect(readdirSync(join(storedArchive({ ref, key: "k1" }, store), "..")).sort()).toEqual(["k2.tar", "k3.tar", "k4.tar"]);
  });
});
