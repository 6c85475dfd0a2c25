/**
 * When two image references name one image: "x", "x:latest",
 * "docker.io/library/x:latest" and podman's "localhost/x:latest" do. The
 * portal checks an uploaded archive against the manifest's `image` with it,
 * and the worker picks the manifest's image among what `podman load` loaded.
 */
export function normalizeImageReference(ref: string): string {
  let r = ref.trim();
  const lastSlash = r.lastIndexOf("/");
  if (!r.includes("@") && !r.slice(lastSlash + 1).includes(":")) r = `${r}:latest`;
  for (const prefix of ["docker.io/library/", "docker.io/", "index.docker.io/library/", "localhost/"]) {
    if (r.startsWith(prefix)) return r.slice(prefix.length);
  }
  return r;
}

/** The reference among `references` that names `image`, if any. */
export const findImageReference = (references: readonly string[], image: string) =>
  references.find((r) => normalizeImageReference(r) === normalizeImageReference(image));
