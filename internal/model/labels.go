package model

// Labels are the label names that the scraped series carry.
type Labels struct {
	// Cluster, Host, GPU, UUID, PCIBusID and Device name a cluster, a machine and a GPU.
	Cluster  string `json:"cluster"`
	Host     string `json:"host"`
	GPU      string `json:"gpu"`
	UUID     string `json:"uuid"`
	PCIBusID string `json:"pciBusId"`
	Device   string `json:"device"`
	// ModelName is the GPU's SKU; DriverVersion its driver's version.
	ModelName     string `json:"modelName"`
	DriverVersion string `json:"driverVersion"`
	// Namespace, Pod and Container attribute a GPU to the container that holds it.
	Namespace string `json:"namespace"`
	Pod       string `json:"pod"`
	Container string `json:"container"`
	// Job is the Slurm job a GPU works for (dcgm-exporter's hpc_job), on a Slurm fleet.
	Job string `json:"job"`
	// ExportedNamespace and ExportedPod hold the workload's pod where a scrape's target labels
	// won (honorLabels: false): Prometheus renames the exporter's labels exported_<name>.
	// Rules read both.
	ExportedNamespace string `json:"exportedNamespace"`
	ExportedPod       string `json:"exportedPod"`
	// MIGInstance and MIGProfile name a MIG instance and its profile.
	MIGInstance string `json:"migInstance"`
	MIGProfile  string `json:"migProfile"`
	// Node is the Kubernetes node name, as kube-state-metrics labels it.
	Node string `json:"node"`
	// Team is the label every alert carries with its owning team, which routing matches on.
	Team string `json:"team"`
}

// Identity lists the label sets that rules aggregate by.
type Identity struct {
	// GPU identifies one physical GPU in per-GPU recording rules.
	GPU []string `json:"gpu"`
	// GPUJoin matches one GPU across raw and recorded series.
	GPUJoin []string `json:"gpuJoin"`
	// Workload names the workload holding a GPU: namespace and pod on Kubernetes, the job on
	// Slurm.
	Workload []string `json:"workload"`
	// Alert is what every GPU alert keeps, the workload included.
	Alert []string `json:"alert"`
}
