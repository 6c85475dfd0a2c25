-- A cell is ranked by one rule, core rankable(), computed when its document is imported
-- (and its numbers judged again): valid, the knee known to 10%, an audit with no anomaly.
ALTER TABLE "CellResult" ADD COLUMN "ranked" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN "unrankedBecause" TEXT;

-- Cells imported before: the same rule from the columns they have (an unaudited cell is not ranked).
UPDATE "CellResult" SET "ranked" = ("valid" AND "kneeResolution" IS NOT NULL AND "kneeResolution" <= 0.1 AND "anomaliesTotal" = 0);
UPDATE "CellResult" SET "unrankedBecause" = CASE
  WHEN NOT "valid" THEN 'the cell is invalid'
  WHEN "kneeResolution" IS NULL THEN 'the knee is not bracketed'
  WHEN "kneeResolution" > 0.1 THEN 'the knee is known only to ' || round(("kneeResolution" * 100)::numeric) || '% (ranked: 10% or better)'
  WHEN "anomaliesTotal" IS NULL THEN 'no audit: the consistency of what was measured is unknown'
  ELSE 'the audit found ' || "anomaliesTotal" || ' anomalies'
END WHERE NOT "ranked";
