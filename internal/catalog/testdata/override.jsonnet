local gpuobs = import 'gpuobs.libsonnet';
local local_overrides = import 'lib/extra.libsonnet';

gpuobs + local_overrides {
  exporter+: { hostLabel: 'hostname', honorLabels: false },
  thresholds+: { gpuTemperatureCelsius: 90 },
  alerts+: { GPUTemperatureHigh+: { 'for': '20m' } },
}
