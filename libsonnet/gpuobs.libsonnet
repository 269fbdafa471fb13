// The gpuobs catalog: the single source of truth for rules, alerts and their tests.
//
// Use it from your own gpuobs.jsonnet and override mixin-style:
//   local gpuobs = import 'gpuobs.libsonnet';
//   gpuobs { thresholds+: { gpuTemperatureCelsius: 90 } }
//
// config.libsonnet holds the settings every family reads (labels, teams, sections, windows);
// each family file (hardware/*, workloads, serving, ...) starts with its own thresholds and
// windows, then its records and alerts. Builders live in lib/.
//
// Alert fields: family, severity (critical pages, warning tickets, info), team, expr, for,
// summary (plain sentence), description (Prometheus template), identity (labels the alert
// keeps), tests: promtool scenarios, each on its own synthetic GPU (lib/test.libsonnet),
// runbook: its page (lib/runbook.libsonnet says what it holds), and panelThresholds: the
// alert's threshold on the panels that show what it reads (dashboards/, lib/panels.libsonnet).
(import 'config.libsonnet')
+ (import 'units.libsonnet')
+ (import 'fields.libsonnet')
+ (import 'exporter.libsonnet')
+ (import 'scheduler.libsonnet')
+ (import 'xids.libsonnet')
+ (import 'hardware/xid.libsonnet')
+ (import 'hardware/memory.libsonnet')
+ (import 'hardware/nvlink.libsonnet')
+ (import 'hardware/pcie.libsonnet')
+ (import 'hardware/thermal.libsonnet')
+ (import 'hardware/throttling.libsonnet')
+ (import 'hardware/exporter.libsonnet')
+ (import 'hardware/recovery.libsonnet')
+ (import 'hardware/fabric.libsonnet')
+ (import 'infiniband/ports.libsonnet')
+ (import 'infiniband/counters.libsonnet')
+ (import 'nccl/inspector.libsonnet')
+ (import 'nccl/alerts.libsonnet')
+ (import 'workloads/inference.libsonnet')
+ (import 'workloads/allocation.libsonnet')
+ (import 'workloads/training.libsonnet')
+ (import 'workloads/hygiene.libsonnet')
+ (import 'engines/engines.libsonnet')
+ (import 'engines/vllm.libsonnet')
+ (import 'engines/sglang.libsonnet')
+ (import 'engines/dynamo.libsonnet')
+ (import 'engines/trtllm.libsonnet')
+ (import 'engines/triton.libsonnet')
+ (import 'scheduling/pods.libsonnet')
+ (import 'scheduling/nodes.libsonnet')
+ (import 'scheduling/drivers.libsonnet')
+ (import 'cohorts.libsonnet')
+ (import 'slos/burnrate.libsonnet')
+ (import 'slos/inference.libsonnet')
+ (import 'slos/availability.libsonnet')
+ (import 'histograms.libsonnet')
+ (import 'serving/throughput.libsonnet')
+ (import 'serving/shedding.libsonnet')
+ (import 'serving/switches.libsonnet')
+ (import 'serving/canary.libsonnet')
+ (import 'cost.libsonnet')
+ (import 'slurm/jobs.libsonnet')
+ (import 'slurm/nodes.libsonnet')
+ (import 'slurm/queue.libsonnet')
+ (import 'dashboards/fleet.libsonnet')
+ (import 'dashboards/cluster.libsonnet')
+ (import 'dashboards/node.libsonnet')
+ (import 'dashboards/workload.libsonnet')
+ (import 'dashboards/gpu.libsonnet')
+ (import 'alertmanager.libsonnet')
+ (import 'maintenance.libsonnet')
+ (import 'lint.libsonnet')
+ {
  // A scenario of the library expects another alert of the library to fire with it only while
  // that alert exists: a catalog that removes an alert (alerts: std.objectRemoveKey(...)) or
  // an SLO keeps the others' scenarios valid. ($ is the final catalog, the user's included.)
  //
  // A section switched off takes its alerts and records with it (gpuobs removes them when it
  // reads the catalog, and names any rule left that reads one): their scenarios and runbooks
  // are hidden, never evaluated.
  //
  // The scenarios are read through `super`, so that they see the final alert (a catalog's
  // `for` included), not the library's. The sections switched off are listed once. (Built of
  // std.objectHas and its kin, which Go answers: std.get is Jsonnet, and this runs for every
  // alert, record and scenario.)
  local sectionsOff = { [s]: true for s in std.objectFields($.enabled) if !$.enabled[s] },
  local off(entry) = std.objectHasAll(entry, 'section') && std.objectHas(sectionsOff, entry.section),
  local exists(also) = std.objectHas($.alerts, also.alert),
  alerts: std.mapWithKey(
    function(_, a)
      if off(a) then a { tests:: [], runbook:: {} }
      else if !std.objectHas(a, 'tests') then a
      else a {
        tests: [
          if !std.objectHasAll(c, 'alsoFires') then c
          else
            local existing = std.filter(exists, c.alsoFires);
            if std.length(existing) == std.length(c.alsoFires) then c else c { alsoFires: existing }
          for c in super.tests
        ],
      },
    super.alerts
  ),
  records: std.mapWithKey(function(_, r) if off(r) then r { tests:: [] } else r, super.records),
}
