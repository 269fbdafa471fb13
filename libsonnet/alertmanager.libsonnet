// Alertmanager: who receives which alert, how it notifies, how alerts group into
// notifications, and which alerts silence others.
{
  local l = $.labels,

  alertmanager: {
    // Receivers by team name and severity; info alerts never notify. Each team of `teams`
    // gets <team>-pager and <team>-ticket; override one: receivers+: { 'gpu-infra'+: { ... } }.
    receivers: {
      [team]: { critical: team + '-pager', warning: team + '-ticket' }
      for team in std.set(std.objectValues($.teams))
    },
    // How each receiver notifies, by receiver name, in Alertmanager's own receiver schema
    // (pagerduty_configs, slack_configs, webhook_configs, msteamsv2_configs, email_configs,
    // ...), checked by Alertmanager's config package. Secrets by reference only
    // (routing_key_file, api_url_file, url_file, webhook_url_file, auth_password_file, ...):
    // an inline secret is refused. A receiver without integrations notifies nobody.
    //   integrations+: { 'infra-pager': { pagerduty_configs: [{ routing_key_file: '/etc/alertmanager/secrets/pagerduty' }] } },
    integrations: {},
    // Gets info alerts and anything no route matches: no integrations, no notification.
    silentReceiver: 'silent',
    // Labels that make one notification, by alert family; `default` for the others: one
    // broken node is one notification.
    groupBy: {
      default: [l.cluster, l.host],
      capacity: [l.cluster],
      hygiene: [l.cluster],
      cohort: [l.cluster],
      inference: [l.cluster, 'namespace', 'pod'],
      release: [l.cluster, 'namespace', $.inference.modelLabel],
      // Workload tickets go to the team running the namespace, not per node: at 100k GPUs a
      // node grouping sends hundreds a day.
      utilization: [l.cluster, l.namespace],
      workload: [l.cluster, l.namespace],
      slo: ['alertname', 'slo', l.cluster, 'namespace', $.inference.modelLabel],
    },
    // Notification timing by severity.
    timing: {
      critical: { groupWait: '30s', groupInterval: '5m', repeatInterval: '4h' },
      warning: { groupWait: '2m', groupInterval: '30m', repeatInterval: '24h' },
    },
    // The alerts that silence others (the rules are derived; see README):
    inhibit: {
      // ...every other alert on the same GPU.
      gpuGone: 'GPUFellOffBus',
      // ...every alert that reads the exporter's series, on the same node.
      exporterDown: 'DCGMExporterDown',
      // ...alerts of these families on the same node (repair: GPUs awaiting an RMA, whose
      // tickets stop once the node is cordoned for the repair).
      // (On Slurm, the node drained, down or in maintenance, where a node-state source says
      // so; none without one.)
      nodeUnschedulable: $.nodes.outOfServiceAlert,
      nodeUnschedulableFamilies: ['utilization', 'workload', 'repair'],
      // ...these tickets in its cluster: an exporter upgrade that renames the host label
      // makes every GPU's series "missing" under the old labels, and every node one without
      // an exporter. Never pages. Generation derives the set from the expressions and
      // refuses a list that differs (the texts name the list).
      // ...in its cluster, the alerts that an inhibition whose source reads kube-state-metrics
      // silences (the cordon's): with kube-state-metrics gone that source is gone too.
      // (On Slurm, the ticket that Slurm's own metrics or the node-state source are gone.)
      kubeStateMetricsDown: if $.scheduler == 'slurm' then 'GPUSlurmMetricsDown' else 'GPUKubeStateMetricsDown',
      labelMismatch: 'DCGMExporterLabelMismatch',
      labelMismatchTargets: ['GPUSeriesMissing', 'DCGMExporterMissingOnNode'] + (if $.enabled.infiniband then ['GPUInfiniBandLinkUnstable'] else []),
      // ...in its cluster, exporterDown and labelMismatchTargets: most exporters of a cluster
      // down at once is one ticket, not one per node and GPU. Never pages.
      exportersDownInCluster: 'DCGMExportersDownInCluster',
    },
  },

  alerts+: {
    local t = import 'lib/test.libsonnet',
    local e = import 'lib/expr.libsonnet',
    // kube-state-metrics is down, or stopped reporting the nodes of a cluster it reported
    // within windows.missing (a target gone from the scrape, RBAC, list errors). Capacity,
    // allocation, quota and scheduling alerts go blind and the cordon inhibition loses its
    // source, at once: one ticket per cluster says so.
    GPUKubeStateMetricsDown: {
      section: 'kubernetes',
      local ksm = e.fill(|||
        kube_node_info{job="$(job)"}
      |||, { job: $.kubeStateMetrics.job }),
      family: 'node',
      team: $.teams.infra,
      severity: 'warning',
      expr: e.fill(|||
        (
            group by ($(cluster)) (last_over_time($(ksm)[$(window)]))
          unless on ($(cluster))
            group by ($(cluster)) ($(ksm))
        )
        or on ($(cluster))
          (max by ($(cluster)) (up{job="$(job)"}) == 0)
      |||, { cluster: l.cluster, ksm: ksm, window: $.windows.missing, job: $.kubeStateMetrics.job }),
      'for': '10m',
      identity: [l.cluster],
      summary: 'kube-state-metrics is down or stopped reporting the nodes of a cluster.',
      description: 'kube-state-metrics (job ' + $.kubeStateMetrics.job + ') has been down, or has reported no node of cluster {{ $labels.' + l.cluster + ' }} it reported within ' + $.windows.missing + ', for ' + self['for'] + ': capacity, allocation, quota and scheduling alerts cannot fire there, and the alerts a cordon would silence are silenced by this one instead.',
      tests: [
        t.case('kube-state-metrics stopped reporting', true, [], nodeInfo='1x30 _x30', target={}, value=1),
        t.case('kube-state-metrics target down', true, [], nodeInfo='1x30 _x30', extra=[t.series('up', '1x30 0x30', e.ksm($.kubeStateMetrics.job, {}))], target={}, value=1),
        t.case('kube-state-metrics reports the node', false, [], nodeInfo='1x60', extra=[t.series('up', '1x60', e.ksm($.kubeStateMetrics.job, {}))]),
        t.case('one failed scrape of kube-state-metrics', false, [], nodeInfo='1x58 _ 1', extra=[t.series('up', '1x58 0 1', e.ksm($.kubeStateMetrics.job, {}))]),
      ],
      runbook: {
        meaning: 'No kube_node_info series of job ' + $.kubeStateMetrics.job + ' for the cluster: kube-state-metrics is down, not scraped, or lists nothing (RBAC, API errors).',
        impact: 'Every alert that reads kube-state-metrics (capacity, allocation, quota, scheduling, the GPU availability SLO) is blind in the cluster, and the cordon inhibition has no source; while this ticket fires, it silences the alerts the cordon would (' + std.join(', ', $.alertmanager.inhibit.nodeUnschedulableFamilies) + ' families) so that a cordoned node does not ticket.',
        queries: [
          { title: 'Is kube-state-metrics scraped and up', expr: e.fill(|||
            up{job="$(job)"}
          |||, { job: $.kubeStateMetrics.job }) },
          { title: 'Nodes it reports per cluster', expr: e.fill(|||
            count by ($(cluster)) ($(ksm))
          |||, { cluster: l.cluster, ksm: ksm }) },
        ],
        diagnosis: [
          { check: 'Is up{job="' + $.kubeStateMetrics.job + '"} 0 or absent?', yes: 'The pod is down or not scraped: check `kubectl -n <namespace> get pods -l app.kubernetes.io/name=kube-state-metrics` and the scrape configuration.', no: 'It runs but lists nothing: check its logs for RBAC (forbidden) or API errors.' },
        ],
        mitigation: ['Restart or fix kube-state-metrics; the ticket resolves once it reports the nodes again.'],
        escalation: 'Infrastructure on-call.',
        dashboards: ['L2'],
      },
    },
    // Source of the cordon inhibition: it shows on dashboards and silences utilization alerts
    // of a node that is being drained. kube-state-metrics names the node as dcgm-exporter
    // names the host (the Kubernetes node name). On Slurm, GPUNodeDrained: the node-state
    // source's node drained, down or in maintenance.
    [if $.nodes.outOfServiceAlert != '' then $.nodes.outOfServiceAlert]: {
      family: 'node',
      team: $.teams.infra,
      severity: 'info',
      expr: e.fill(|||
        max by ($(cluster), $(host)) ($(unschedulable))
      |||, { cluster: l.cluster, host: l.host, unschedulable: $.nodes.outOfService }),
      identity: [l.cluster, l.host],
      summary: 'A GPU node is ' + $.nodes.outOfServiceText + '.',
      description: 'Node {{ $labels.' + l.host + ' }} in cluster {{ $labels.' + l.cluster + ' }} is ' + $.nodes.outOfServiceLong + ': its utilization alerts are inhibited.',
      tests: $.nodes.outOfServiceCases('gpu-node-7'),
      runbook: (if $.scheduler == 'slurm' then $.nodes.outOfServiceRunbook else {
                  meaning: 'kube-state-metrics reports the node unschedulable: someone cordoned it, or a drain is in progress.',
                  impact: 'None by itself. While it fires, utilization and workload alerts of the node are inhibited: an emptied node is idle on purpose.',
                  queries: [
                    // ($$(cluster) and $$(host) are the dashboard variables $cluster and $host.)
                    { title: 'Unschedulable GPU nodes of the cluster', expr: e.fill(|||
                      kube_node_spec_unschedulable{$(cluster)="$$(cluster)"} == 1
                    |||, { cluster: l.cluster }) },
                    { title: 'Other alerts on the node', expr: e.fill(|||
                      ALERTS{alertstate="firing", $(host)="$$(host)"}
                    |||, { host: l.host }) },
                  ],
                  diagnosis: [
                    { check: 'Is a hardware alert firing on the node?', yes: 'The cordon is part of its repair: follow that runbook.', no: '' },
                    { check: 'Is maintenance scheduled for the node?', yes: 'Nothing to do; uncordon afterwards.', no: 'Ask who cordoned it (`kubectl describe node`); uncordon if forgotten.' },
                  ],
                  mitigation: ['Uncordon when the work is done: `kubectl uncordon $' + l.host + '`.'],
                  escalation: 'Infrastructure on-call.',
                }) + {
        dashboards: ['L2', 'L3'],
      },
    },
  },
}
