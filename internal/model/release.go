package model

// Release names the deployment label that tells canary from baseline series.
type Release struct {
	Label    string `json:"label"`
	Canary   string `json:"canary"`
	Baseline string `json:"baseline"`
}
