// Mistakes that used to generate and then fail in CI or silently misbehave: all reported here.
local gpuobs = import 'gpuobs.libsonnet';
gpuobs {
  alerts+: {
    // Differs from GPUTemperatureHigh only in case.
    GPUTemperatureHIGH: gpuobs.alerts.GPUTemperatureHigh,
    // Replaces the burn-rate alert the InferenceTTFT SLO generates.
    SLOInferenceTTFTFastBurn: gpuobs.alerts.GPUTemperatureHigh,
    // The first check ends both ways: the rest of the diagnosis is never reached.
    GPUEccDoubleBit+: { runbook+: { diagnosis: [
      { check: 'Is the GPU still there?', yes: 'Reset it.', no: 'Drain the node.' },
      { check: 'Did it happen before?', yes: 'Open an RMA.', no: '' },
    ] } },
  },
  slos+: {
    InferenceLatency+: { tiers: [
      { alert: 'FastBurn', factor: 14.4, long: '5m', short: '1h' },
      { alert: 'SlowBurn', factor: 1, long: '90d', short: '6h' },
    ] },
  },
  xid+: { application+: [79] },
}
