-- No query filters or sorts on a chunk's embedding array, and gathering its statistics (1,536 numbers a row) took
-- 2.7 s of the 3 s an ANALYZE of 10,000 chunks took: the planner is left without them.
ALTER TABLE "chunks" ALTER COLUMN "embedding" SET STATISTICS 0;
