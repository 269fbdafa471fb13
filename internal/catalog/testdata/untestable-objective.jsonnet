// An availability objective stricter than the generated tests can show (the library refuses it
// by its catalog path, without its stack trace) beside a mistyped threshold: one run reports both.
local gpuobs = import 'gpuobs.libsonnet';
gpuobs {
  thresholds+: { gpuTemperatureCelsius: 'hot' },
  slos+: { GPUAvailability+: { objective: 0.9999 } },
}
