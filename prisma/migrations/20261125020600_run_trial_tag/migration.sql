-- A run that was a trial of a campaign keeps its tag (campaign, trial, round, attempt) and whether
-- the machine was busy, and every run its machine class: the board takes the median of one
-- campaign's trials on one class of machine.
ALTER TABLE "Run" ADD COLUMN "campaignId" UUID,
ADD COLUMN "trial" INTEGER,
ADD COLUMN "round" INTEGER,
ADD COLUMN "attempt" INTEGER,
ADD COLUMN "busy" BOOLEAN,
ADD COLUMN "machineClass" TEXT;

-- CreateIndex
CREATE INDEX "Run_campaignId_systemId_idx" ON "Run"("campaignId", "systemId");

-- Runs imported before: the tag and class from their stored documents.
UPDATE "Run" r SET
  "campaignId" = (d.document->'campaign'->>'campaignId')::uuid,
  "trial" = (d.document->'campaign'->>'trial')::int,
  "round" = (d.document->'campaign'->>'round')::int,
  "attempt" = (d.document->'campaign'->>'attempt')::int,
  "busy" = (d.document->'noise'->>'busy')::boolean
FROM "RunDocument" d WHERE d."runId" = r.id AND d.document ? 'campaign';
-- (the same words as packages/db src/machine-class.ts)
UPDATE "Run" SET "machineClass" = ("environment"->>'cores')
  || CASE WHEN ("environment"->>'cores') = '1' THEN ' core, ' ELSE ' cores, ' END
  || COALESCE(NULLIF(btrim("environment"->>'cpuModel'), ''), 'unknown CPU') || ', '
  || round(("environment"->>'memoryBytes')::numeric / 1073741824) || ' GiB'
WHERE "environment" IS NOT NULL AND "environment" ? 'cores';
