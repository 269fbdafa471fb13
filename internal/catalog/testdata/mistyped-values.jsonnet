// Values of the wrong JSON type, caught when the catalog is decoded: said in catalog terms.
local gpuobs = import 'gpuobs.libsonnet';
gpuobs {
  alerts+: { GPUTemperatureHigh+: { tests+: [{ name: 'x', fires: 'sometimes' }] } },
  fleet+: { clusters: 'ten' },
  thresholds+: { gpuTempCelsius: "hot" },
}
