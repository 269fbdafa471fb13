// A fleet on dcgm-exporter 4.9 whose GPUs are handed out through NVIDIA's DRA driver: no node
// has the nvidia.com/gpu extended resource; capacity is the GPUs the ResourceSlices publish,
// allocation the devices of claims.
(import 'gpuobs.libsonnet') {
  exporter+: { version: '4.9' },
  kubernetes+: { gpuAllocation: 'dra' },
}
