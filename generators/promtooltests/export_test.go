package promtooltests

// MaxScenarioGPUs is maxScenarioGPUs for the external tests: the GPU availability SLO's sizing
// in the library must refuse at the same bound.
const MaxScenarioGPUs = maxScenarioGPUs
