// A small catalog for generator tests: two rolled-up fields (GPU temperature and power, their
// node, cluster and fleet rules, no namespace rollups: they weigh by the cost rules' GPU
// shares), three alerts (a threshold with a for, exporter down with its
// host record, node cordoned), no SLOs, throttle flags, cost rules or dashboards.
local gpuobs = import 'gpuobs.libsonnet';
local keep(obj, names) = { [k]: obj[k] for k in names };
local rolledUp = ['DCGM_FI_DEV_GPU_TEMP', 'DCGM_FI_DEV_POWER_USAGE'];
gpuobs {
  fields: std.mapWithKey(
    function(name, f) if std.member(rolledUp, name) then f { byNamespace: false } else f { rollup: 'none', byNamespace: false },
    gpuobs.fields
  ),
  alerts: std.mapWithKey(
    function(_, a) a { runbook+: { dashboards: [] } },
    keep(gpuobs.alerts, ['GPUTemperatureHigh', 'DCGMExporterDown', 'GPUNodeCordoned'])
  ),
  records: keep(gpuobs.records, ['instance:dcgm_exporter_host:group']),
  slos: {},
  throttleReasons: {},
  dashboards: {},
  alertmanager+: { inhibit+: { gpuGone: '', labelMismatch: '', kubeStateMetricsDown: '', exportersDownInCluster: '' } },
  exporter+: { stockCounterSetAlert: '' },
}
