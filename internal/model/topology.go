package model

// Topology modes and global engines.
const (
	TopologySingle  = "single"
	TopologySharded = "sharded"
	EngineThanos    = "thanos"
	EngineMimir     = "mimir"
)

// Topology is where the rules run: one Prometheus, or shards under a global engine.
type Topology struct {
	// Mode is single or sharded.
	Mode string `json:"mode"`
	// ShardLabel is the external label that tells shards apart (cluster).
	ShardLabel string `json:"shardLabel"`
	// GlobalEngine evaluates the global layer: thanos (ruler over a querier) or mimir (ruler).
	GlobalEngine string `json:"globalEngine"`
	// GlobalQueryOffset is the query_offset of the global layer's groups: how far behind the
	// evaluation time they read, so that every shard's records for it have arrived.
	GlobalQueryOffset string `json:"globalQueryOffset"`
}

// Sharded reports whether the rules are split between shards and a global layer.
func (t Topology) Sharded() bool { return t.Mode == TopologySharded }
