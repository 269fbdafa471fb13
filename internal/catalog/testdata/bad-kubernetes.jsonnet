// GPUs through DRA without the driver's name, and the device plugin's time-slicing replicas
// kept: each is reported, by catalog path.
(import 'gpuobs.libsonnet') {
  kubernetes+: { gpuAllocation: 'dra', draDriver: '' },
  sharing+: { replicas: 4 },
}
