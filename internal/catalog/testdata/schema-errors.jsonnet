// Several problems at once: every one is reported.
local gpuobs = import 'gpuobs.libsonnet';
gpuobs {
  alerts+: {
    GPUEccDoubleBit+: { 'for': '5x', severity: 'page' },
    GPUTemperatureHigh+: { forr: '10m' },
    GPUXidFatal+: { expr: 'max by (gpu) (DCGM_FI_DEV_XID_ERRORS > ' },
    GPUAllocatedIdle+: { runbook+: { dashboards: ['L9'] } },
    GPUPowerThrottling+: { team: 'nobody' },
    // Read by the dashboards in Jsonnet only: hidden.
    GPUPowerHigh: { panelThresholds: { DCGM_FI_DEV_POWER_USAGE: 700 } },
  },
  fields+: { DCGM_FI_DEV_GPU_TEMP+: { rollup: 'rate' } },
  throttleReasons+: { idle: { bits: [1], help: 'idle' } },
  slos+: {
    InferenceErrors+: { tiers+: [{ alert: 'FastBurn', factor: 200, long: '1h', short: '5m' }] },
    InferenceTTFT+: { objective: 99 },
  },
  cost+: { gpuHourly+: { 'NVIDIA L4': 0 } },
  sharing+: { replicas: 0, migProfileWeights+: { '1g.10gb': 2 } },
  // Virtual GPUs copy a MIG instance's framebuffer to each pod on it: no namespace sum.
  exporter+: { virtualGPUs: true, perProcessFields: ['DCGM_FI_DEV_GPU_UTIL', 'DCGM_FI_DEV_FB_USEDD'] },
}
