-- AlterTable
ALTER TABLE "CellResult" ADD COLUMN     "kneeResolution" DOUBLE PRECISION,
ADD COLUMN     "kneeStoppedBecause" TEXT;
