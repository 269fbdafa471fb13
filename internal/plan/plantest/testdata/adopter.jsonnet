// A team's own catalog, as an adopting SRE team writes it: dcgm-exporter 4.8.3 relabelled to
// `node`, every other label under a name of its own (the cluster label k8s_cluster, the team
// label owner), teams of its own, PagerDuty for pages and Slack for tickets (secrets by
// reference), and its runbooks served elsewhere. Tests that prove a
// feature on the embedded catalog run it on this one too.
local gpuobs = import 'gpuobs.libsonnet';

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
    local pagerduty(team) = { pagerduty_configs: [{ routing_key_file: '/etc/alertmanager/secrets/pagerduty-' + team, send_resolved: true }] },
    local slack(team) = { slack_configs: [{ api_url_file: '/etc/alertmanager/secrets/slack', channel: '#' + team, send_resolved: true }] },
    integrations+: {
      [team + '-pager']: pagerduty(team)
      for team in std.objectValues($.teams)
    } + {
      [team + '-ticket']: slack(team)
      for team in std.objectValues($.teams)
    },
  },
  runbooks+: { baseURL: 'https://runbooks.example.com/gpu/', grafanaURL: 'https://grafana.example.com' },
}
