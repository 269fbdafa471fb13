package model

// Labels are the label names that the scraped series carry.
type Labels struct {
	Cluster       string `json:"cluster"`
	Host          string `json:"host"`
	GPU           string `json:"gpu"`
	UUID          string `json:"uuid"`
	PCIBusID      string `json:"pciBusId"`
	Device        string `json:"device"`
	ModelName     string `json:"modelName"`
	DriverVersion string `json:"driverVersion"`
	Namespace     string `json:"namespace"`
	Pod           string `json:"pod"`
	Container     string `json:"container"`
	MIGInstance   string `json:"migInstance"`
	MIGProfile    string `json:"migProfile"`
	Node          string `json:"node"`
	// Team is the label every alert carries with its owning team, which routing matches on.
	Team string `json:"team"`
}

// Identity lists the label sets that rules aggregate by.
type Identity struct {
	// GPU identifies one physical GPU in per-GPU recording rules.
	GPU []string `json:"gpu"`
	// GPUJoin matches one GPU across raw and recorded series.
	GPUJoin []string `json:"gpuJoin"`
	// Alert is what every GPU alert keeps, pod attribution included.
	Alert []string `json:"alert"`
}
