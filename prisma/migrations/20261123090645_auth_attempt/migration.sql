-- CreateTable
CREATE TABLE "AuthAttempt" (
    "id" UUID NOT NULL,
    "action" TEXT NOT NULL,
    "account" TEXT NOT NULL,
    "address" TEXT,
    "counts" BOOLEAN NOT NULL DEFAULT true,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "AuthAttempt_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "AuthAttempt_action_account_createdAt_idx" ON "AuthAttempt"("action", "account", "createdAt");

-- CreateIndex
CREATE INDEX "AuthAttempt_action_address_createdAt_idx" ON "AuthAttempt"("action", "address", "createdAt");

-- CreateIndex
CREATE INDEX "AuthAttempt_createdAt_idx" ON "AuthAttempt"("createdAt");

-- Written by hand: the actions that are throttled.
ALTER TABLE "AuthAttempt" ADD CONSTRAINT "AuthAttempt_action_check" CHECK ("action" IN ('sign-in', 'sign-up'));
