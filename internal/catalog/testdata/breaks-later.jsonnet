// Mistakes that used to generate and then fail in CI or silently misbehave: all reported here.
local gpuobs = import 'gpuobs.libsonnet';
gpuobs {
  alerts+: {
    // Differs from GPUTemperatureHigh only in case.
    GPUTemperatureHIGH: gpuobs.alerts.GPUTemperatureHigh,
    // Replaces the burn-rate alert the InferenceTTFT SLO generates.
    SLOInferenceTTFTFastBurn: gpuobs.alerts.GPUTemperatureHigh,
  },
  slos+: {
    InferenceLatency+: { tiers: [
      { alert: 'FastBurn', factor: 14.4, long: '5m', short: '1h' },
      { alert: 'SlowBurn', factor: 1, long: '90d', short: '6h' },
    ] },
  },
  xid+: { application+: [79] },
}
