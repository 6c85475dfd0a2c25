-- An image archive of an old version may be removed from disk by the portal's retention
-- (SFBENCH_KEEP_IMAGE_ARCHIVES): its row stays, with its digest, as the record of what was run.
ALTER TABLE "Upload" ADD COLUMN "prunedAt" TIMESTAMPTZ(3);
