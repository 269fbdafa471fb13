local gpuobs = import 'gpuobs.libsonnet';
gpuobs { threshold: { gpuTemperatureCelsius: 90 } }
