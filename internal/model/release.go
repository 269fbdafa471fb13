package model

// Release names the deployment label that tells canary from baseline series.
type Release struct {
	// Label is the label name (track); Canary and Baseline its values on each side.
	Label    string `json:"label"`
	Canary   string `json:"canary"`
	Baseline string `json:"baseline"`
}
