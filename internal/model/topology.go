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
	// ClusterExternal says that each cluster's Prometheus names its cluster only as an
	// external label: alert texts read it from there, and runbook queries select no cluster.
	ClusterExternal bool `json:"clusterExternal"`
}

// ExternalLabel is the label that the rules' own Prometheus holds only as an external label
// ("" for none): the shard label of a sharded topology, or the cluster label where
// ClusterExternal.
func (m *Model) ExternalLabel() string {
	switch {
	case m.Topology.Sharded():
		return m.Topology.ShardLabel
	case m.Topology.ClusterExternal:
		return m.Labels.Cluster
	}
	return ""
}

// Sharded reports whether the rules are split between shards and a global layer.
func (t Topology) Sharded() bool { return t.Mode == TopologySharded }
