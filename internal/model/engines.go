package model

// Engine is an LLM serving engine's profile (inference.profiles), as documents show it.
type Engine struct {
	// Title names the engine in documents.
	Title string `json:"title"`
	// Served is whether the fleet serves with it (inference.engines, the inference section on).
	Served bool `json:"served"`
	// ModelLabel is the label its series name the model by.
	ModelLabel string `json:"modelLabel"`
	// Endpoint is where it serves its metrics, and Enable what turns them on.
	Endpoint string `json:"endpoint"`
	Enable   string `json:"enable"`
	// Metrics are its metric names by the quantity they measure (timeToFirstToken,
	// interTokenLatency, requestLatency); a quantity it cannot show is absent.
	Metrics map[string]string `json:"metrics"`
}
