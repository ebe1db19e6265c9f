-- Rows of a processed file that loaded but count in no return (a cash flow on or before its
-- entity's first valuation date): listed beside the row errors. At most 1000 stored per file,
-- `warningCount` counts them all. Replaced by every ingest of the file.

-- AlterTable
ALTER TABLE "UploadedFile" ADD COLUMN "warningCount" INTEGER NOT NULL DEFAULT 0;

-- CreateTable
CREATE TABLE "FileRowWarning" (
    "id" UUID NOT NULL,
    "fileId" UUID NOT NULL,
    "line" INTEGER NOT NULL,
    "column" TEXT,
    "message" TEXT NOT NULL,

    CONSTRAINT "FileRowWarning_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "FileRowWarning_fileId_line_idx" ON "FileRowWarning"("fileId", "line");

-- AddForeignKey
ALTER TABLE "FileRowWarning" ADD CONSTRAINT "FileRowWarning_fileId_fkey" FOREIGN KEY ("fileId") REFERENCES "UploadedFile"("id") ON DELETE CASCADE ON UPDATE CASCADE;
