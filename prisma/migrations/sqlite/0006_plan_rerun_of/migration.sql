-- dotplan 0006 (sqlite): a plan made by `dotplan plan rerun` names the plan it runs again.
-- Released migrations are never edited: add a new folder instead.

-- NULL for a plan created from a template, a DOT file or a goal.
ALTER TABLE "plans" ADD COLUMN "rerun_of" TEXT;
