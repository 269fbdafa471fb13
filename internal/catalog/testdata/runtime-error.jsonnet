local gpuobs = import 'gpuobs.libsonnet';
gpuobs {
  thresholds+: { gpuTemperatureCelsius: std.parseInt('ninety') },
}
