// gpuobs.jsonnet: your GPU observability catalog.
//
// It starts from the catalog embedded in gpuobs and overrides it mixin-style: `field+:`
// merges into the default, `field:` replaces it. Generate with:
//   gpuobs generate -c gpuobs.jsonnet -o .
local gpuobs = import 'gpuobs.libsonnet';

gpuobs {
  exporter+: {
    // dcgm-exporter 4.8.3 and later label the host 'hostname'.
    // hostLabel: 'hostname',

    // Prometheus scrapes the exporter with honorLabels: false (the Helm chart's default
    // ServiceMonitor): pod attribution arrives as exported_namespace/exported_pod.
    // honorLabels: false,

    // Newer counter files name the clock-event bitmask DCGM_FI_DEV_CLOCKS_EVENT_REASONS.
    // throttleReasonsField: 'DCGM_FI_DEV_CLOCKS_EVENT_REASONS',
  },

  labels+: {
    // The label that names the cluster (set by relabeling or external labels).
    // cluster: 'k8s_cluster',
  },

  runbooks+: {
    // runbook_url = baseURL + AlertName + '.md'
    // baseURL: 'https://runbooks.example.com/gpu/',
  },

  thresholds+: {
    // gpuTemperatureCelsius: 87,
    // eccSingleBitPerHour: 50,
  },

  alerts+: {
    // Tune one alert:
    // GPUTemperatureHigh+: { 'for': '30m' },
    // Route one to another team:
    // GPUPowerThrottling+: { team: 'ml-platform' },
  },

  xid+: {
    // Page on NVLink XIDs too:
    // fatal+: [74],
  },
}
