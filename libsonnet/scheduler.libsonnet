// What the families read of the scheduler (config's scheduler), whichever hands GPUs out:
// Kubernetes (kube-state-metrics) or Slurm (slurmctld's own metrics and a node-state
// exporter). A family asks for the nodes the scheduler knows, the nodes in maintenance and
// the runbook steps that take a node out of service; the scenarios ask for the series that say
// so.
local e = import 'lib/expr.libsonnet';
local t = import 'lib/test.libsonnet';
{
  nodes:: {
    local l = $.labels,
    local s = $.slurm,
    local slurm = $.scheduler == 'slurm',
    local ksmJob = $.kubeStateMetrics.job,
    // A Slurm series with the exporter's host label, from the Slurm node name it carries in
    // label (slurm.hostFromNode).
    local asHost(series, label) = e.fill(|||
      label_replace($(series), "$(host)", "$(replacement)", "$(node)", "$(regex)")
    |||, { series: series, host: l.host, replacement: s.hostFromNode.replacement, node: label, regex: s.hostFromNode.regex }),
    local stateJob = s.nodeState.job,

    // The nodes the scheduler knows, with the exporter's host label: kube-state-metrics'
    // nodes, or the nodes slurmctld counts GPUs on.
    known: if slurm then asHost(e.fill('slurm_node_gpus{job="$(job)"}', { job: s.job }), s.nodeLabel)
    else e.fill(|||
      label_replace(kube_node_info{job="$(job)"}, "$(host)", "$1", "$(node)", "(.+)")
    |||, { job: ksmJob, host: l.host, node: l.node }),

    // The nodes taken out of service, with the host label: cordoned (unschedulable), or in
    // Slurm drained, draining, down, failing or in maintenance (as the node-state source
    // tells: SckyzO's sinfo long state, soperator's flags); none without a source.
    outOfService: outOfService,
    local outOfService = if !slurm then e.asHost(l, e.fill(|||
      kube_node_spec_unschedulable{job="$(job)"} == 1
    |||, { job: ksmJob }))
    else if s.nodeState.source == 'sckyzo' then asHost(e.fill(|||
      slurm_node_status{job="$(job)", status=~"(drain|drng|down|maint|fail).*"} == 1
    |||, { job: stateJob }), 'node')
    else if s.nodeState.source == 'soperator' then asHost(e.fill(|||
      (slurm_node_info{job="$(job)", state_is_drain="true"} or slurm_node_info{job="$(job)", state_is_maintenance="true"} or slurm_node_info{job="$(job)", state_base=~"DOWN|FAIL.*"}) == 1
    |||, { job: stateJob }), 'node_name')
    else 'vector(0) != 0',

    // Scenario series: a node taken out of service.
    outOfServiceSeries(node):: if !slurm then t.series('kube_node_spec_unschedulable', '1x60', e.ksm(ksmJob, { node: node }))
    else if s.nodeState.source == 'soperator' then t.series(
      'slurm_node_info',
      '1x60',
      {
        job: stateJob,
        node_name: node,
        state_base: 'IDLE',
        state_is_drain: 'true',
        state_is_maintenance: 'false',
        state_is_reserved: 'false',
        reason: $.slurm.drainReasons.hardware + ' diag',
      },
    )
    else t.series('slurm_node_status', '1x60', { job: stateJob, node: node, status: 'drained', partition: 'gpu' }),

    // Runbook steps that take a node out of service (host: the alert's host label): stop new
    // work landing on it, then move what runs there off it.
    cordon(host, reason='hardware', why='gpu'):: if slurm then
      'Drain the node in Slurm so no new job lands on it: `scontrol update nodename=$' + host + ' state=drain reason="' + s.drainReasons[reason] + ' ' + why + '"` (`sinfo -R -n $' + host + '` shows the reason).'
    else 'Cordon the node so nothing new lands on it: `kubectl cordon $' + host + '`.',
    drain(host):: if slurm then
      'Let its jobs end, or once their owners know requeue them: `squeue -w $' + host + '` lists them, `scontrol requeue <job>` (or `scancel <job>`) moves them off; `sacct -N $' + host + ' -S today -o JobID,User,Account,Partition,State,Start,End` lists the jobs that ran there today, whose owners to tell.'
    else 'Drain it once the owners of running jobs know: `kubectl drain $' + host + ' --ignore-daemonsets --delete-emptydir-data`.',
    // The alert that a node is out of service (the source of the inhibition that silences
    // its utilization alerts): cordoned on Kubernetes, drained on Slurm, none where no
    // node-state source tells; its words, and its scenarios on node.
    outOfServiceAlert:: if !slurm then 'GPUNodeCordoned' else if s.nodeState.source == 'none' then '' else 'GPUNodeDrained',
    outOfServiceText:: if slurm then 'drained, down or in maintenance in Slurm' else 'cordoned or draining',
    outOfServiceLong:: if slurm then 'drained, draining, down or in maintenance in Slurm (' + s.nodeState.source + "'s node state)" else 'unschedulable (cordoned or draining)',
    // The node-state source's series (scheduler slurm), and a node in service as it reports it.
    stateSeries:: e.fill('$(metric){job="$(job)"}', { metric: if s.nodeState.source == 'soperator' then 'slurm_node_info' else 'slurm_node_status', job: stateJob }),
    inServiceSeries(node)::
      if s.nodeState.source == 'soperator' then t.series(
        'slurm_node_info',
        '1x60',
        { job: stateJob, node_name: node, state_base: 'ALLOCATED', state_is_drain: 'false', state_is_maintenance: 'false', state_is_reserved: 'false', reason: '' },
      )
      else t.series('slurm_node_status', '1x60', { job: stateJob, node: node, status: 'allocated', partition: 'gpu' }),
    outOfServiceCases(node)::
      local inService = if slurm then self.inServiceSeries(node) else t.series('kube_node_spec_unschedulable', '0x60', e.ksm(ksmJob, { node: node }));
      local out = if slurm then self.outOfServiceSeries(node) { values: '_x30 1x30' }
      else t.series('kube_node_spec_unschedulable', '0x30 1x30', e.ksm(ksmJob, { node: node }));
      [
        t.case(self.held, true, [], extra=[out] + (if slurm then [inService { values: '1x30 _x30' }] else []), target={ [l.host]: node }, value=1),
        t.case(if slurm then 'in service' else 'schedulable', false, [], extra=[inService]),
      ],
    // The runbook of a node out of service on Slurm (the alert's host label is the node).
    outOfServiceRunbook:: {
      meaning: 'Slurm reports the node drained, draining, down or in maintenance (' + s.nodeState.source + "'s node state): a node health check, an administrator or Slurm itself (a node that stopped responding) took it out of service.",
      impact: 'None by itself: no new job lands on it. While it fires, utilization and workload alerts of the node are inhibited: an emptied node is idle on purpose.',
      queries: [
        { title: 'Nodes out of service', expr: outOfService },
        { title: 'Other alerts on the node', expr: e.fill(|||
          ALERTS{alertstate="firing", $(host)="$$(host)"}
        |||, { host: l.host }) },
      ],
      diagnosis: [
        { check: 'Does the reason (`sinfo -R -n $' + l.host + '`) start with ' + s.drainReasons.hardware + ', or is a hardware alert firing on the node?', yes: 'The drain is part of its repair: follow that runbook.', no: '' },
        { check: 'Is maintenance scheduled for the node?', yes: 'Nothing to do; resume it afterwards.', no: 'Ask who drained it (`scontrol show node $' + l.host + '` shows the reason, the user and the time); resume it if forgotten.' },
      ],
      mitigation: ['Resume the node when the work is done: `scontrol update nodename=$' + l.host + ' state=resume`.'],
      escalation: 'Infrastructure on-call.',
    },
    // Back into service once repaired, and the state a node held out of service is in.
    back(host):: if slurm then 'resume it (`scontrol update nodename=$' + host + ' state=resume`)' else 'uncordon',
    // Runbook words about the exporter on a node: a pod of the GPU Operator's DaemonSet, or
    // on a Slurm fleet a systemd service scraped as a static or file_sd target.
    exporter:: if slurm then {
      running: 'Is the exporter service running on the node (`systemctl status dcgm-exporter` on the host of $instance)?',
      crashed: 'Start it; check why it stopped (`journalctl -u dcgm-exporter -b`).',
      together: 'Did the exporter services restart together (a package or configuration rollout)?',
      togetherYes: 'Wait for the rollout; if services fail, read `journalctl -u dcgm-exporter` on one.',
      logs: '`journalctl -u dcgm-exporter` on the node',
      restart: 'Restart the exporter service of the node (`systemctl restart dcgm-exporter`).',
      onNode(host): 'Is the exporter service installed and running on the node (`systemctl status dcgm-exporter` on $' + host + ')?',
      onNodeYes: "Check that Prometheus scrapes it: the node is in the exporter's target list (static or file_sd), and its target is up.",
      onNodeNo: 'Install and enable it there (the node image or configuration management missed it).',
      fix: ['Install or start the exporter service on the node.', "Add the node to the exporter's scrape targets."],
    } else {
      running: 'Is the exporter pod running (`kubectl -n gpu-operator get pods -o wide | grep $instance`)?',
      crashed: 'Restart it; check why it crashed (`kubectl logs --previous`).',
      together: 'Did the exporter pods restart together (an upgrade of the DaemonSet or the GPU Operator)?',
      togetherYes: 'Wait for the rollout; if pods crash, read `kubectl logs --previous` of one.',
      logs: '`kubectl logs` of its pod',
      restart: 'Restart the exporter pod of the node.',
      onNode(host): 'Is an exporter pod on the node (`kubectl get pods -n gpu-operator -o wide --field-selector spec.nodeName=$' + host + '`)?',
      onNodeYes: 'Check that Prometheus scrapes it: the ServiceMonitor selects it, and its target is up.',
      onNodeNo: "The DaemonSet does not schedule there: compare the node's labels and taints with its node selector and tolerations (the GPU Operator labels GPU nodes nvidia.com/gpu.present=true).",
      fix: ['Fix the DaemonSet selector or tolerations, or the node labels.', 'Fix the scrape configuration.'],
    },
    // What holds a GPU: a pod, or a Slurm job.
    worker:: if slurm then 'job' else 'pod',
    held:: if slurm then 'drained' else 'cordoned',
  },
}
