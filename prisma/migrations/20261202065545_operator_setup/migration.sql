-- AlterTable
ALTER TABLE "User" ADD COLUMN     "operatorSince" TIMESTAMPTZ(3);

-- CreateTable
CREATE TABLE "OperatorSetup" (
    "id" UUID NOT NULL,
    "email" TEXT NOT NULL,
    "tokenHash" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expiresAt" TIMESTAMPTZ(3) NOT NULL,
    "usedAt" TIMESTAMPTZ(3),

    CONSTRAINT "OperatorSetup_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "OperatorSetup_tokenHash_key" ON "OperatorSetup"("tokenHash");
