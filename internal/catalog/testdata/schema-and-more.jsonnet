// A mistake the schema checks catch (it stops the evaluation) beside mistakes only the
// decoded catalog shows: one run reports them all.
local gpuobs = import 'gpuobs.libsonnet';
gpuobs {
  thresholds+: { gpuTemperatureCelsius: 'hot' },
  slos+: { InferenceLatency+: { objective: 1 } },
  alerts+: {
    GPUEccDoubleBit+: { 'for': '5x' },
    GPUTemperatureHigh+: { forr: '5m' },
  },
}
