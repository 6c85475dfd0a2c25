/**
 * The form's uploads: the file is the body of POST /api/uploads/<kind> (the
 * browser streams it), sent with the session cookie from the portal's own
 * origin. A refusal comes back under the form field it concerns.
 */
const FIELD = { "image-archive": "imageArchive", "source-archive": "sourceArchive" } as const;
export type FormUploadKind = keyof typeof FIELD;

export type FormUpload = { ok: true; id: string } | { ok: false; field: (typeof FIELD)[FormUploadKind]; message: string };

export async function uploadFile(kind: FormUploadKind, file: Blob, send: typeof fetch = fetch): Promise<FormUpload> {
  const field = FIELD[kind];
  let res: Response;
  try {
    res = await send(`/api/uploads/${kind}`, { method: "POST", body: file, headers: { "content-type": "application/x-tar" }, credentials: "same-origin" });
  } catch (e) {
    return { ok: false, field, message: `the upload did not reach the portal: ${(e as Error).message}` };
  }
  const body = (await res.json().catch(() => null)) as { id?: string; error?: { message?: string } } | null;
  if (res.ok && body?.id) return { ok: true, id: body.id };
  return { ok: false, field, message: body?.error?.message ?? `the upload failed (HTTP ${res.status})` };
}
