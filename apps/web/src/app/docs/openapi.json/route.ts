import { openApiText } from "../../../server/docs.ts";

export function GET() {
  return new Response(openApiText(), { headers: { "content-type": "application/json; charset=utf-8", "cache-control": "public, max-age=3600" } });
}
