-- The initial sfbench schema. Generated from prisma/schema.prisma by the schema engine
-- (npm run db:migration -w @sfbench/db), plus the CHECK constraints at the end.

-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateEnum
CREATE TYPE "RunStatus" AS ENUM ('queued', 'running', 'completed', 'failed', 'needs-cluster');

-- CreateEnum
CREATE TYPE "EnvironmentKind" AS ENUM ('local', 'kubernetes');

-- CreateEnum
CREATE TYPE "Profile" AS ENUM ('quick', 'standard', 'thesis');

-- CreateEnum
CREATE TYPE "Workload" AS ENUM ('checkout', 'analytics', 'contention');

-- CreateEnum
CREATE TYPE "Distribution" AS ENUM ('uniform', 'zipf');

-- CreateTable
CREATE TABLE "User" (
    "id" UUID NOT NULL,
    "email" TEXT NOT NULL,
    "passwordHash" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "User_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Session" (
    "id" UUID NOT NULL,
    "tokenHash" TEXT NOT NULL,
    "userId" UUID NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expiresAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "Session_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ApiToken" (
    "id" UUID NOT NULL,
    "userId" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "tokenHash" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastUsedAt" TIMESTAMPTZ(3),
    "revokedAt" TIMESTAMPTZ(3),

    CONSTRAINT "ApiToken_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "System" (
    "id" UUID NOT NULL,
    "slug" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT,
    "ownerId" UUID,
    "repository" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "System_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "TargetVersion" (
    "id" UUID NOT NULL,
    "systemId" UUID NOT NULL,
    "version" TEXT NOT NULL,
    "manifest" JSONB,
    "manifestDigest" TEXT NOT NULL,
    "image" TEXT,
    "loc" JSONB,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "TargetVersion_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Run" (
    "id" UUID NOT NULL,
    "systemId" UUID NOT NULL,
    "targetVersionId" UUID NOT NULL,
    "status" "RunStatus" NOT NULL DEFAULT 'queued',
    "stage" TEXT,
    "progress" INTEGER NOT NULL DEFAULT 0,
    "environmentKind" "EnvironmentKind" NOT NULL,
    "nodes" INTEGER NOT NULL,
    "environment" JSONB,
    "profile" "Profile" NOT NULL,
    "seed" BIGINT,
    "parameters" JSONB NOT NULL DEFAULT '{}',
    "errorStage" TEXT,
    "errorMessage" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "startedAt" TIMESTAMPTZ(3),
    "finishedAt" TIMESTAMPTZ(3),
    "resultPath" TEXT,
    "rawData" JSONB,
    "submittedById" UUID,

    CONSTRAINT "Run_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "RunDocument" (
    "runId" UUID NOT NULL,
    "digest" TEXT NOT NULL,
    "document" JSONB NOT NULL,
    "importedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "RunDocument_pkey" PRIMARY KEY ("runId")
);

-- CreateTable
CREATE TABLE "CellResult" (
    "id" UUID NOT NULL,
    "runId" UUID NOT NULL,
    "workload" "Workload" NOT NULL,
    "distribution" "Distribution" NOT NULL,
    "seed" BIGINT NOT NULL,
    "parameters" JSONB NOT NULL,
    "valid" BOOLEAN NOT NULL,
    "invalidReason" TEXT,
    "maxMovingAvg10s" DOUBLE PRECISION,
    "sustainableRate" DOUBLE PRECISION,
    "offeredRate" DOUBLE PRECISION,
    "achievedRate" DOUBLE PRECISION,
    "errorRate" DOUBLE PRECISION,
    "p50" DOUBLE PRECISION,
    "p95" DOUBLE PRECISION,
    "p99" DOUBLE PRECISION,
    "p999" DOUBLE PRECISION,
    "mean" DOUBLE PRECISION,
    "max" DOUBLE PRECISION,
    "throughputPerCore" DOUBLE PRECISION,
    "coreSecondsPer1000" DOUBLE PRECISION,
    "peakRssBytes" BIGINT,
    "generatorCpuShare" DOUBLE PRECISION,
    "anomaliesTotal" INTEGER,
    "anomalies" JSONB,
    "steps" JSONB NOT NULL DEFAULT '[]',
    "latencyByTag" JSONB,
    "setupOps" JSONB,
    "series" JSONB NOT NULL,
    "histograms" JSONB NOT NULL,
    "breakdown" JSONB,

    CONSTRAINT "CellResult_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Rating" (
    "id" UUID NOT NULL,
    "userId" UUID NOT NULL,
    "systemId" UUID NOT NULL,
    "programmingModel" INTEGER NOT NULL,
    "understandability" INTEGER NOT NULL,
    "comment" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "Rating_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "User_email_key" ON "User"("email");

-- CreateIndex
CREATE UNIQUE INDEX "Session_tokenHash_key" ON "Session"("tokenHash");

-- CreateIndex
CREATE INDEX "Session_userId_idx" ON "Session"("userId");

-- CreateIndex
CREATE INDEX "Session_expiresAt_idx" ON "Session"("expiresAt");

-- CreateIndex
CREATE UNIQUE INDEX "ApiToken_tokenHash_key" ON "ApiToken"("tokenHash");

-- CreateIndex
CREATE INDEX "ApiToken_userId_idx" ON "ApiToken"("userId");

-- CreateIndex
CREATE UNIQUE INDEX "System_slug_key" ON "System"("slug");

-- CreateIndex
CREATE INDEX "System_ownerId_idx" ON "System"("ownerId");

-- CreateIndex
CREATE UNIQUE INDEX "TargetVersion_systemId_manifestDigest_key" ON "TargetVersion"("systemId", "manifestDigest");

-- CreateIndex
CREATE UNIQUE INDEX "TargetVersion_id_systemId_key" ON "TargetVersion"("id", "systemId");

-- CreateIndex
CREATE INDEX "Run_status_environmentKind_nodes_systemId_finishedAt_idx" ON "Run"("status", "environmentKind", "nodes", "systemId", "finishedAt" DESC);

-- CreateIndex
CREATE INDEX "Run_systemId_createdAt_idx" ON "Run"("systemId", "createdAt" DESC);

-- CreateIndex
CREATE INDEX "Run_targetVersionId_idx" ON "Run"("targetVersionId");

-- CreateIndex
CREATE INDEX "Run_submittedById_idx" ON "Run"("submittedById");

-- CreateIndex
CREATE INDEX "Run_createdAt_idx" ON "Run"("createdAt" DESC);

-- CreateIndex
CREATE UNIQUE INDEX "CellResult_runId_workload_distribution_key" ON "CellResult"("runId", "workload", "distribution");

-- CreateIndex
CREATE INDEX "Rating_systemId_idx" ON "Rating"("systemId");

-- CreateIndex
CREATE UNIQUE INDEX "Rating_userId_systemId_key" ON "Rating"("userId", "systemId");

-- AddForeignKey
ALTER TABLE "Session" ADD CONSTRAINT "Session_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ApiToken" ADD CONSTRAINT "ApiToken_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "System" ADD CONSTRAINT "System_ownerId_fkey" FOREIGN KEY ("ownerId") REFERENCES "User"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "TargetVersion" ADD CONSTRAINT "TargetVersion_systemId_fkey" FOREIGN KEY ("systemId") REFERENCES "System"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Run" ADD CONSTRAINT "Run_systemId_fkey" FOREIGN KEY ("systemId") REFERENCES "System"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Run" ADD CONSTRAINT "Run_targetVersionId_systemId_fkey" FOREIGN KEY ("targetVersionId", "systemId") REFERENCES "TargetVersion"("id", "systemId") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Run" ADD CONSTRAINT "Run_submittedById_fkey" FOREIGN KEY ("submittedById") REFERENCES "User"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "RunDocument" ADD CONSTRAINT "RunDocument_runId_fkey" FOREIGN KEY ("runId") REFERENCES "Run"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "CellResult" ADD CONSTRAINT "CellResult_runId_fkey" FOREIGN KEY ("runId") REFERENCES "Run"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Rating" ADD CONSTRAINT "Rating_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Rating" ADD CONSTRAINT "Rating_systemId_fkey" FOREIGN KEY ("systemId") REFERENCES "System"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Written by hand: CHECK constraints, which schema.prisma cannot express.
ALTER TABLE "Run" ADD CONSTRAINT "Run_progress_check" CHECK ("progress" BETWEEN 0 AND 100);
ALTER TABLE "Run" ADD CONSTRAINT "Run_nodes_check" CHECK ("nodes" > 0);
ALTER TABLE "Rating" ADD CONSTRAINT "Rating_programmingModel_check" CHECK ("programmingModel" BETWEEN 1 AND 5);
ALTER TABLE "Rating" ADD CONSTRAINT "Rating_understandability_check" CHECK ("understandability" BETWEEN 1 AND 5);
ALTER TABLE "CellResult" ADD CONSTRAINT "CellResult_errorRate_check" CHECK ("errorRate" BETWEEN 0 AND 1);
