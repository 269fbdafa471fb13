package model

// Lint configures gpuobs lint.
type Lint struct {
	// Budgets are the most series a rule (by level) or dashboard query (by L1..L5) may produce.
	Budgets map[string]int `json:"budgets"`
	// Disable lists checks (or areas) skipped everywhere.
	Disable []string `json:"disable"`
	// Ignore skips checks for files matching a path pattern.
	Ignore []LintIgnore `json:"ignore"`
	// Policy is the team's own conventions, checked in files gpuobs did not generate (gpuobs'
	// output is held to gpuobs' conventions); an empty entry checks nothing.
	Policy LintPolicy `json:"policy"`
	// Renamed maps a recording rule's former name to its name now: a read of the former name
	// that no rule of the inputs records is reported with the new one.
	Renamed map[string]string `json:"renamed"`
}

// LintPolicy is a team's alert and rule conventions.
type LintPolicy struct {
	// Severities are the allowed values of an alert's severity label; when set, an alert
	// without one is reported too.
	Severities []string `json:"severities"`
	// Annotations are the annotation keys every alert must have.
	Annotations []string `json:"annotations"`
	// RecordNames and AlertNames are regular expressions every recording rule and alert name
	// must match.
	RecordNames string `json:"recordNames"`
	AlertNames  string `json:"alertNames"`
}

// LintIgnore skips a check (or area) for files whose path matches Path (path.Match syntax).
type LintIgnore struct {
	// Check is the check or area; Path the path pattern.
	Check string `json:"check"`
	Path  string `json:"path"`
}

// Fleet is the fleet size projections are made for.
type Fleet struct {
	// Clusters, NodesPerCluster, GPUsPerNode and MIGInstancesPerGPU size the GPUs.
	Clusters           int `json:"clusters"`
	NodesPerCluster    int `json:"nodesPerCluster"`
	GPUsPerNode        int `json:"gpusPerNode"`
	MIGInstancesPerGPU int `json:"migInstancesPerGPU"`
	// NamespacesPerCluster and PodsPerNode size the workloads (on Slurm, NamespacesPerCluster
	// the jobs running at once in a cluster).
	NamespacesPerCluster int `json:"namespacesPerCluster"`
	PodsPerNode          int `json:"podsPerNode"`
}
