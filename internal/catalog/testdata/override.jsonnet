local gpuobs = import 'gpuobs.libsonnet';
local local_overrides = import 'lib/extra.libsonnet';

gpuobs + local_overrides {
  // A fleet of vGPU guests: no temperature field, GPUs counted by their memory clock.
  exporter+: { hostLabel: 'hostname', honorLabels: false, vgpuGuests: true },
  thresholds+: { gpuTemperatureCelsius: 90 },
  // A templated label: Prometheus expands it like an annotation.
  alerts+: { GPUTemperatureHigh+: { 'for': '20m', labels+: { gpu_slot: 'slot-{{ $labels.gpu }}' } } },
}
