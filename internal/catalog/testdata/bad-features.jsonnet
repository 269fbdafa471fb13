// Prometheus 3 PromQL on servers the catalog says run without its flag, and a flag that does
// not exist.
(import 'gpuobs.libsonnet') {
  prometheus+: { enableFeatures: ['promql-experimental-function'] },
  alerts+: {
    GPUTemperatureHigh+: { expr: 'limitk by (cluster) (3, DCGM_FI_DEV_GPU_TEMP) > 85' },
  },
}
