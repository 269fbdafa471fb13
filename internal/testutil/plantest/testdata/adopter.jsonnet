// A team's own catalog, as an adopting SRE team writes it: dcgm-exporter 4.8.3 relabelled to
// `node`, every other label under a name of its own (the cluster label k8s_cluster, the team
// label owner, the model servers' model label served_model), teams of its own, PagerDuty for pages and Slack for tickets (secrets by
// reference), a training fleet's sections only (no canary releases, cost or cohorts), an alert
// of its own, its runbooks served elsewhere, and Prometheus 3 servers that keep vLLM's
// histograms as native histograms. Tests that prove a
// feature on the embedded catalog run it on this one too.
local gpuobs = import 'gpuobs.libsonnet';
local t = import 'lib/test.libsonnet';

gpuobs {
  exporter+: { version: '4.8.3', hostLabel: 'node' },
  labels+: {
    cluster: 'k8s_cluster',
    gpu: 'gpu_index',
    uuid: 'gpu_uuid',
    pciBusId: 'pci_bus',
    device: 'nvidia_device',
    modelName: 'gpu_model',
    driverVersion: 'driver_version',
    namespace: 'k8s_namespace',
    pod: 'k8s_pod',
    container: 'k8s_container',
    migInstance: 'mig_instance',
    migProfile: 'mig_profile',
    team: 'owner',
  },
  teams+: { infra: 'gpu-infra', 'ml-platform': 'ml-plat', inference: 'llm-serving' },
  alertmanager+: {
    local pagerduty(team) = { pagerduty_configs: [{ routing_key_file: '/etc/alertmanager/secrets/pagerduty/' + team, send_resolved: true }] },
    local slack(team) = { slack_configs: [{ api_url_file: '/etc/alertmanager/secrets/slack/api-url', channel: '#' + team, send_resolved: true }] },
    integrations+: {
      [team + '-pager']: pagerduty(team)
      for team in std.set(std.objectValues($.teams))
    } + {
      [team + '-ticket']: slack(team)
      for team in std.set(std.objectValues($.teams))
    },
  },
  // Its model servers label the model served_model (a relabeling of its own).
  inference+:: { modelLabel: 'served_model' },
  enabled+: { release: false, cost: false, cohorts: false },
  prometheus+: { nativeHistograms: true },
  // The team's own alert: its expression keeps fewer labels than a GPU alert's full identity
  // (no PCI bus, no pod), from which its scenarios' expected labels are derived.
  alerts+: {
    GPUPowerOverBudget: {
      family: 'power',
      severity: 'warning',
      team: $.teams.infra,
      expr: 'max by (k8s_cluster, node, gpu_index, gpu_uuid, gpu_model) (DCGM_FI_DEV_POWER_USAGE) > 650',
      'for': '10m',
      summary: 'A GPU draws more power than the racks are budgeted for.',
      description: 'GPU {{ $labels.gpu_index }} on {{ $labels.node }} draws {{ $value | printf "%.0f" }} W (budget 650 W).',
      tests: [
        t.case('over budget', true, [t.series('DCGM_FI_DEV_POWER_USAGE', '300x30 700x30')], value=700),
        t.case('a short peak', false, [t.series('DCGM_FI_DEV_POWER_USAGE', '300x50 700x5 300x5')]),
      ],
      runbook: {
        meaning: 'The GPU has drawn over the 650 W rack budget for 10m.',
        impact: 'The rack may trip its breaker if several GPUs do.',
        queries: [{ title: 'Power of the GPUs of the node', expr: 'DCGM_FI_DEV_POWER_USAGE{k8s_cluster="$k8s_cluster", node="$node"}' }],
        diagnosis: [{ check: 'Do other GPUs of the rack draw as much?', yes: 'Cap the power limit of the rack.', no: 'Check the job on this GPU.' }],
        mitigation: ['Lower the power limit: `nvidia-smi -pl 600 -i $gpu_index`.'],
        escalation: 'Datacenter operations.',
        dashboards: ['L3'],
      },
    },
  },
  runbooks+: { baseURL: 'https://runbooks.example.com/gpu/', grafanaURL: 'https://grafana.example.com' },
}
