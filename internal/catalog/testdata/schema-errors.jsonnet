// Several problems at once: every one is reported.
local gpuobs = import 'gpuobs.libsonnet';
gpuobs {
  alerts+: {
    GPUEccDoubleBit+: { 'for': '5x', severity: 'page' },
    GPUTemperatureHigh+: { forr: '10m' },
    GPUXidFatal+: { expr: 'max by (gpu) (DCGM_FI_DEV_XID_ERRORS > ' },
  },
  fields+: { DCGM_FI_DEV_GPU_TEMP+: { rollup: 'rate' } },
  throttleReasons+: { idle: { bits: [1], help: 'idle' } },
}
