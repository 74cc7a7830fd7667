-- dotplan 0015 (postgresql): what the planner assumes of edges.from_node.
-- Released migrations are never edited: add a new folder instead.

-- A claim describes each claimed node's out-edges (`edges WHERE plan_id = ? AND from_node = ?`, claim.ts). Sampled
-- statistics of a table holding a large fan-out say from_node has one value, so the planner expected every edge to
-- match and scanned the plan's 20,000 edges for each claimed leaf (6–8 ms each, auto_explain), where the
-- (plan_id, from_node) index finds none at once. A node has few out-edges: tell the planner so; ANALYZE (which
-- statistics.ts runs after a large plan is created) applies it.
ALTER TABLE "edges" ALTER COLUMN "from_node" SET (n_distinct = -0.5);
