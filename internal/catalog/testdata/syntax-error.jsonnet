local gpuobs = import 'gpuobs.libsonnet';
gpuobs {
  thresholds+: { gpuTemperatureCelsius: 90 ,, },
}
