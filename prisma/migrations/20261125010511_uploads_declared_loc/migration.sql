-- CreateEnum
CREATE TYPE "UploadKind" AS ENUM ('image-archive', 'source-archive');

-- AlterTable
ALTER TABLE "TargetVersion" ADD COLUMN     "declaredLoc" JSONB;

-- CreateTable
CREATE TABLE "Upload" (
    "id" UUID NOT NULL,
    "userId" UUID NOT NULL,
    "kind" "UploadKind" NOT NULL,
    "sha256" TEXT NOT NULL,
    "size" BIGINT NOT NULL,
    "path" TEXT NOT NULL,
    "references" TEXT[],
    "targetVersionId" UUID,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Upload_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "Upload_userId_createdAt_idx" ON "Upload"("userId", "createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "Upload_targetVersionId_kind_key" ON "Upload"("targetVersionId", "kind");

-- AddForeignKey
ALTER TABLE "Upload" ADD CONSTRAINT "Upload_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Upload" ADD CONSTRAINT "Upload_targetVersionId_fkey" FOREIGN KEY ("targetVersionId") REFERENCES "TargetVersion"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- LOC stored until now was the submitter's own figure: kept as declared, and sfbench counts anew at the next run
UPDATE "TargetVersion" SET "declaredLoc" = "loc", "loc" = NULL WHERE "loc" IS NOT NULL;
