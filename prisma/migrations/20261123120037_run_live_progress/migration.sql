-- AlterTable
ALTER TABLE "Run" ADD COLUMN     "live" JSONB;
