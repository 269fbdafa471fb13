// A fleet on Prometheus 3.5 (a long-term-support line): an alert of the team's own reads
// first_over_time (3.7) and a template function of 3.6, a record histogram trim operators
// (3.11); on 3.5 each is refused by its catalog path, naming the release that added it.
(import 'gpuobs.libsonnet') {
  prometheus+: { version: '3.5' },
  alerts+: {
    GPUTemperatureHigh+: {
      expr: 'max by (cluster, Hostname, gpu, UUID, pci_bus_id, modelName, namespace, pod) (first_over_time(DCGM_FI_DEV_GPU_TEMP[10m])) > 85',
      description: 'Hot since {{ now | humanizeTimestamp }}.',
    },
  },
  records+: {
    'cluster:dcgm_gpu_temp:trimmed': { family: 'thermal', expr: 'sum by (cluster) (histogram_count(x) </ 3)' },
  },
}
