// GPUs time-sliced by the device plugin (2 replicas each), scraped from dcgm-exporter with
// --kubernetes-virtual-gpus: a shared GPU's series are copied to each of its pods.
(import 'gpuobs.libsonnet') {
  exporter+: { virtualGPUs: true },
  sharing+: { replicas: 2 },
}
