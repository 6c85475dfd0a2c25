/** Random secrets (session cookies, API tokens) and their stored form: only sha256 digests reach the database. */
import { createHash, randomBytes } from "node:crypto";

/** 32 random bytes, base64url: 256 bits, safe in a cookie or a header. */
export function newSecret(prefix = ""): string {
  return prefix + randomBytes(32).toString("base64url");
}

export function hashSecret(secret: string): string {
  return createHash("sha256").update(secret).digest("hex");
}
