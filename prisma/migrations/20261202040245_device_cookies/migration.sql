-- A browser that signed in to an account before carries a device cookie: its sign-in attempts are
-- limited per device, so wrong passwords from elsewhere that lock the account out do not lock out its owner.
-- AlterTable
ALTER TABLE "AuthAttempt" ADD COLUMN     "device" UUID;

-- CreateTable
CREATE TABLE "DeviceCookie" (
    "id" UUID NOT NULL,
    "tokenHash" TEXT NOT NULL,
    "userId" UUID NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expiresAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "DeviceCookie_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "DeviceCookie_tokenHash_key" ON "DeviceCookie"("tokenHash");

-- CreateIndex
CREATE INDEX "DeviceCookie_userId_idx" ON "DeviceCookie"("userId");

-- CreateIndex
CREATE INDEX "AuthAttempt_action_device_createdAt_idx" ON "AuthAttempt"("action", "device", "createdAt");

-- AddForeignKey
ALTER TABLE "DeviceCookie" ADD CONSTRAINT "DeviceCookie_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE;
