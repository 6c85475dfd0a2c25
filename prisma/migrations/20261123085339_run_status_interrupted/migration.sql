-- AlterEnum
ALTER TYPE "RunStatus" ADD VALUE 'interrupted';
