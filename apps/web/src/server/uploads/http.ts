/**
 * POST /api/uploads/<kind> with the file as the request body (the CLI's
 * `sfbench submit --image-archive`, and the submit form): who is asking as for
 * tRPC mutations (API token, or the session cookie from the portal's own
 * origin), then receive.ts. Answers JSON: the upload, or {error: {message, field}}.
 */
import type { Db } from "@sfbench/db";
import { authenticate } from "../auth/authenticate.ts";
import { checkOrigin, requestOrigin } from "../auth/origin.ts";
import { getDb } from "../db.ts";
import { defaultUploadSettings, UPLOAD_KINDS, type UploadKindName, type UploadSettings } from "./limits.ts";
import { receiveUpload, UploadRefused } from "./receive.ts";

export interface UploadHandlerOptions {
  db?: Db;
  settings?: UploadSettings;
}

const json = (status: number, body: unknown) => Response.json(body, { status });
const refuse = (e: UploadRefused) => json(e.status, { error: { message: e.message, field: e.field } });

export async function handleUpload(req: Request, kind: string, opts: UploadHandlerOptions = {}): Promise<Response> {
  if (!UPLOAD_KINDS.includes(kind as UploadKindName))
    return refuse(new UploadRefused(404, "kind", `no upload kind "${kind}"; allowed: ${UPLOAD_KINDS.join(", ")}`));
  const origin = checkOrigin(req.headers, requestOrigin(req.headers, req.url));
  if (!origin.ok) return refuse(new UploadRefused(403, "origin", origin.reason));
  const db = opts.db ?? (await getDb());
  const { user } = await authenticate(db, req.headers);
  if (!user) return refuse(new UploadRefused(401, "authorization", "sign in (or send Authorization: Bearer <API token>) to upload"));
  const length = req.headers.get("content-length");
  try {
    const received = await receiveUpload(
      db,
      user.id,
      kind as UploadKindName,
      req.body,
      length ? Number(length) : undefined,
      opts.settings ?? defaultUploadSettings(),
    );
    return json(201, received);
  } catch (e) {
    if (e instanceof UploadRefused) return refuse(e);
    throw e;
  }
}
