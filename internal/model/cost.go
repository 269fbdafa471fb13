package model

// Cost is the price table that turns GPU time into money.
type Cost struct {
	// Currency is the prices' currency (USD).
	Currency string `json:"currency"`
	// GPUHourly is the price of one GPU-hour by modelName (the exporter's SKU label).
	GPUHourly map[string]float64 `json:"gpuHourly"`
	// TeamLabel is the kube_namespace_labels label naming the team that owns a namespace.
	TeamLabel string `json:"teamLabel"`
}

// Sharing is how GPUs are shared among pods: MIG instances and time-slicing or MPS replicas.
type Sharing struct {
	// MIGProfileWeights is the share of its GPU a MIG instance stands for, by GPU_I_PROFILE.
	MIGProfileWeights map[string]float64 `json:"migProfileWeights"`
	// Replicas is how many devices the device plugin advertises per GPU (time-slicing, MPS).
	Replicas int `json:"replicas"`
}
