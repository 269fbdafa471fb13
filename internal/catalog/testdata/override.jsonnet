local gpuobs = import 'gpuobs.libsonnet';
local local_overrides = import 'lib/extra.libsonnet';

gpuobs + local_overrides {
  // A fleet of vGPU guests, read by their memory clock alone (no temperature field).
  exporter+: { hostLabel: 'hostname', healthFields: ['DCGM_FI_DEV_MEM_CLOCK'] },
  thresholds+: { gpuTemperatureCelsius: 90 },
  alerts+: {
    // A templated label: Prometheus expands it like an annotation.
    GPUTemperatureHigh+: { 'for': '20m', labels+: { gpu_slot: 'slot-{{ $labels.gpu }}' } },
    // A shorter wait for the peer comparison: its scenarios read the alert's final `for`.
    GPUHotterThanFleetPeers+: { 'for': '25m' },
  },
}
