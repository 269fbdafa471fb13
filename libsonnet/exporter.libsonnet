// How dcgm-exporter and kube-state-metrics label their series, as configuration.
{
  exporter: {
    // Prometheus job of the dcgm-exporter targets.
    job: 'dcgm-exporter',
    // Host label: 'Hostname' up to exporter 4.8.2, 'hostname' from 4.8.3.
    hostLabel: 'Hostname',
    // false when Prometheus scrapes with honorLabels: false (the Helm chart's ServiceMonitor
    // default): pod attribution then arrives as exported_namespace/exported_pod/exported_container.
    honorLabels: true,
    // Name of the clock-event bitmask field your exporter collects
    // (DCGM_FI_DEV_CLOCKS_EVENT_REASONS in newer counter files).
    throttleReasonsField: 'DCGM_FI_DEV_CLOCK_THROTTLE_REASONS',
    // A default-collected field that every GPU reports; its disappearance means the GPU is gone.
    healthField: 'DCGM_FI_DEV_GPU_TEMP',
    // Fields your counter file collects beyond the exporter's default set. The default lists
    // what the embedded rules read; lint warns about rules that read a field collected by
    // neither.
    extraCounters: [
      'DCGM_FI_DEV_CLOCK_THROTTLE_REASONS',
      'DCGM_FI_DEV_ECC_SBE_VOL_TOTAL',
      'DCGM_FI_DEV_ECC_DBE_VOL_TOTAL',
      'DCGM_FI_DEV_RETIRED_PENDING',
      'DCGM_FI_DEV_ROW_REMAP_PENDING',
      'DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL',
      'DCGM_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_TOTAL',
      'DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL',
      'DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL',
      'DCGM_FI_PROF_SM_ACTIVE',
      // Dashboards: power against the limit, NVLink traffic.
      'DCGM_FI_DEV_POWER_MGMT_LIMIT',
      'DCGM_FI_PROF_NVLINK_TX_BYTES',
      'DCGM_FI_PROF_NVLINK_RX_BYTES',
    ],
  },

  kubeStateMetrics: {
    job: 'kube-state-metrics',
    // kube-state-metrics sanitises nvidia.com/gpu to nvidia_com_gpu.
    gpuResource: 'nvidia_com_gpu',
  },

  // Label names as the series carry them. Derived from `exporter`; override single names here.
  labels: {
    local pod(name) = if $.exporter.honorLabels then name else 'exported_' + name,
    cluster: 'cluster',
    host: $.exporter.hostLabel,
    gpu: 'gpu',
    uuid: 'UUID',
    pciBusId: 'pci_bus_id',
    device: 'device',
    modelName: 'modelName',
    driverVersion: 'DCGM_FI_DRIVER_VERSION',
    namespace: pod('namespace'),
    pod: pod('pod'),
    container: pod('container'),
    migInstance: 'GPU_I_ID',
    migProfile: 'GPU_I_PROFILE',
    // kube-state-metrics' node label.
    node: 'node',
  },
}
