// dcgm-exporter itself: targets down (one, or many of a cluster at once), a scrape job or
// label profile other than the catalog's, a stock counter set, and GPUs that stopped reporting.
local e = import '../lib/expr.libsonnet';
local gpu = import '../lib/gpu.libsonnet';
local names = import '../lib/names.libsonnet';
local rb = import '../lib/runbook.libsonnet';
local t = import '../lib/test.libsonnet';
{
  thresholds+: {
    // More than this share of a cluster's exporter targets down at once (and more than one):
    // the scrape is broken for the cluster, not each node.
    exportersDownRatio: 0.5,
  },

  local exporterHost = 'instance:dcgm_exporter_host:group',
  records+: {
    // Which host each exporter target serves, for alerts on the target (up has no host label).
    // A target that goes down keeps its host for as long as it stays down (the record reads
    // its own last value), so DCGMExporterDown keeps one identity for the whole outage.
    [exporterHost]: {
      family: 'exporter',
      comments: ['Reads its own last value while the target is down: a mapping outlives the series it came from.'],
      // The host is the catalog's host label, else the first spelling of dcgm-exporter's own
      // that the series carry (exporter.hostLabels), where the catalog reads the exporter's
      // own: an exporter of another version than the catalog's still has its node
      // (DCGMExporterLabelMismatch tickets the difference). A catalog whose host label is a
      // relabelling of its own reads that alone.
      local others = if std.member($.exporter.hostLabels, $.labels.host) then [x for x in $.exporter.hostLabels if x != $.labels.host] else [],
      local spellings = [$.labels.host] + others,
      local byTarget = [$.labels.cluster, 'instance'],
      local hosts = if others == [] then e.fill('group by ($(target), $(host)) ($(health))', { target: std.join(', ', byTarget), host: $.labels.host, health: $.exporter.health() }) else e.fill(|||
        group by ($(target), $(host)) (label_replace(label_join(group by ($(target), $(spellings)) ($(health)), "$(joined)", ";", $(quoted)), "$(host)", "$1", "$(joined)", ";*([^;]+).*"))
      |||, {
        target: std.join(', ', byTarget),
        host: $.labels.host,
        spellings: std.join(', ', spellings),
        joined: 'host_labels',
        quoted: std.join(', ', [std.escapeStringJson(x) for x in spellings]),
        health: $.exporter.health(),
      }),
      expr: e.fill(|||
        $(hosts) or ($(known) and on ($(target)) (up{job="$(job)"} == 0))
      |||, { hosts: hosts, target: std.join(', ', byTarget), known: exporterHost, job: $.exporter.job }),
      local gpu = t.gpu($.labels, 'node-a', 0) { job: $.exporter.job },
      local gpuB(other) = t.gpu($.labels, 'node-b', 0) { job: $.exporter.job, instance: 'node-b:9400', [$.labels.host]: '', [other]: 'node-b' },
      local up(g, values) = t.series('up', values, { [$.labels.cluster]: 'prod', job: $.exporter.job, instance: g.instance }),
      tests: [
        t.recordCase('the exporter down for 50 minutes keeps its host',
                     [t.series($.exporter.healthField, '65x10 _x50', gpu), up(gpu, '1x10 0x50')],
                     [t.sample({ [$.labels.cluster]: 'prod', instance: gpu.instance, [$.labels.host]: 'node-a' }, 1)],
                     exporterHost),
      ] + [
        t.recordCase('an exporter that names its host ' + other,
                     [t.series($.exporter.healthField, '65x60', gpuB(other)), up(gpuB(other), '1x60')],
                     [t.sample({ [$.labels.cluster]: 'prod', instance: gpuB(other).instance, [$.labels.host]: 'node-b' }, 1)],
                     exporterHost)
        for other in others[:1]
      ],
    },
  },

  alerts+: {
    local g = gpu($),
    local fill = g.fill,
    local l = $.labels,
    local w = $.windows,
    local hw = g.owner,
    local gpuText = g.gpuText,
    local q = rb.query,
    local step = rb.step,
    local is = rb.is,
    local nodeSel = g.nodeSel,
    local cordon = g.cordon,
    local drain = g.drain,
    local hardware = g.hardware,

    // The exporter's host comes from the instance-to-host map, so that the alert can inhibit
    // the alerts of that node; the map keeps a down target's host for the whole outage, and an
    // exporter whose series were never seen within windows.missing alerts without it.
    DCGMExporterDown: hw {
      family: 'exporter',
      severity: 'warning',
      expr: e.fill(|||
        (up{job="$(job)"} == 0) * on ($(cluster), instance) group_left ($(host)) topk by ($(cluster), instance) (1, last_over_time($(hosts)[$(window)])) or on ($(cluster), instance) (up{job="$(job)"} == 0)
      |||, { job: $.exporter.job, cluster: l.cluster, host: l.host, hosts: exporterHost, window: w.missing }),
      'for': '5m',
      identity: [l.cluster, 'instance', 'job', l.host] + $.exporter.targetPodLabels,
      summary: 'A dcgm-exporter target is down: its GPUs are unmonitored.',
      description: 'dcgm-exporter {{ $labels.instance }} on {{ $labels.' + l.host + ' }} in cluster {{ $labels.' + l.cluster + ' }} has been down for ' + self['for'] + '; none of its GPU alerts can fire.',
      tests: [
        t.case('exporter down', true, [], up='1x30 0x30', health='65x30 _x30', value=0),
        t.case('exporter down since before the host map remembers', true, [], up='0x60', health=false, value=0, without=[l.host]),
        t.case('one failed scrape', false, [], up='1x58 0 1'),
      ],
      runbook: rb.exporterTarget($.exporter.job, l.cluster, $.nodes.exporter) {
        meaning: 'Prometheus cannot scrape a dcgm-exporter target.',
        impact: 'Every GPU alert for the GPUs of that node is blind: nothing fires, whatever happens.',
        mitigation: ['Restart the dcgm-exporter pod on the node.', 'If DCGM itself hangs, drain the node and restart the NVIDIA host engine or reboot.'],
        escalation: rb.escalation.infra,
        dashboards: ['L2', 'L3'],
      },
    },

    // Blind is its own state: most exporters of a cluster down at once is a scrape problem of
    // the cluster (a network policy, the ServiceMonitor, Prometheus itself), not of each node.
    // One ticket says so and silences, in its cluster, each target's DCGMExporterDown and the
    // tickets of GPUs and nodes read as missing (alertmanager.inhibit.exportersDownInCluster).
    DCGMExportersDownInCluster: hw {
      family: 'exporter',
      severity: 'warning',
      local down = e.fill('count by ($(cluster)) (up{job="$(job)"} == 0)', { cluster: l.cluster, job: $.exporter.job }),
      expr: e.fill(|||
        $(down) / count by ($(cluster)) (up{job="$(job)"}) > $(ratio) and $(down) > 1
      |||, { down: down, cluster: l.cluster, job: $.exporter.job, ratio: e.num($.thresholds.exportersDownRatio) }),
      'for': '5m',
      identity: [l.cluster],
      summary: 'Most dcgm-exporter targets of a cluster are down: its GPUs are unmonitored.',
      description: '{{ $value | humanizePercentage }} of the dcgm-exporter targets of job ' + $.exporter.job + ' in cluster {{ $labels.' + l.cluster + ' }} have been down for ' + self['for'] + ' (threshold ' + e.percent($.thresholds.exportersDownRatio) + ' %): the scrape is broken for the cluster, and no GPU alert there can fire.',
      // Other exporter targets of the scenario's cluster, each with its own pod.
      local other(i) = { job: $.exporter.job, instance: '10.250.1.' + i + ':9400' } + $.exporter.targetPod('node-' + i),
      local target(i, values) = t.series('up', values, other(i)),
      tests: [
        t.case('three of four exporters down', true, [], up='1x30 0x30', health='65x30 _x30', extra=[target(1, '1x30 0x30'), target(2, '1x30 0x30'), target(3, '1x60')], target={}, value=0.75, alsoFires=[
          t.also('DCGMExporterDown', 0),
          t.also('DCGMExporterDown', 0, target=other(1)),
          t.also('DCGMExporterDown', 0, target=other(2)),
        ]),
        t.case('one of four exporters down', false, [], up='1x30 0x30', health='65x30 _x30', extra=[target(1, '1x60'), target(2, '1x60'), target(3, '1x60')], alsoFires=[t.also('DCGMExporterDown', 0)]),
      ],
      runbook: {
        meaning: 'More than ' + e.percent($.thresholds.exportersDownRatio) + ' % of the dcgm-exporter targets (job ' + $.exporter.job + ') of the cluster have been down for ' + $.alerts.DCGMExportersDownInCluster['for'] + '. Their GPUs are unseen, not known down: the availability SLO counts their capacity as blind.',
        impact: "No GPU alert of those nodes can fire. While this fires, each target's DCGMExporterDown and the tickets of GPUs and nodes read as missing are silenced in the cluster.",
        queries: [
          q('Targets down, by node', e.fill('up{job="$(job)", $(cluster)} == 0', { job: $.exporter.job, cluster: is(l.cluster) })),
          q('Share of the targets down', e.fill('avg(1 - up{job="$(job)", $(cluster)})', { job: $.exporter.job, cluster: is(l.cluster) })),
        ],
        diagnosis: [
          step($.nodes.exporter.together, $.nodes.exporter.togetherYes),
          step("Did a network policy, the ServiceMonitor or Prometheus's configuration change?", 'Roll the change back.', "Check Prometheus's own health (its targets page, its logs)."),
        ],
        mitigation: ['Restore the scrape: roll back the change that broke it.'],
        escalation: rb.escalation.infra,
        dashboards: ['L2'],
      },
    },

    // The job self-check: GPU series arrive from exporter targets of another job while the
    // catalog's job (exporter.job) has no target in the cluster (the GPU Operator's
    // ServiceMonitor names its job nvidia-dcgm-exporter, the Helm chart's dcgm-exporter).
    // DCGMExporterDown reads up of the catalog's job: it cannot fire for those targets, and an
    // exporter outage would read as every GPU missing.
    DCGMExporterJobMismatch: hw {
      local h = $.exporter.healthText,
      // The job of the scenarios' other exporter: a documented job other than the catalog's.
      local other = $.exporter.otherJob,
      family: 'exporter',
      severity: 'warning',
      expr: e.fill(|||
        count by ($(cluster), job) (group by ($(cluster), job, instance) ($(health))) unless on ($(cluster)) group by ($(cluster)) (up{job="$(job)"})
      |||, { cluster: l.cluster, health: $.exporter.health(e.match('job', '!=', $.exporter.job)), job: $.exporter.job }),
      'for': '15m',
      identity: [l.cluster, 'job'],
      summary: "GPU series arrive under another job than the catalog's exporter job: exporter outages cannot alert.",
      description: '{{ $value | printf "%.0f" }} exporter targets of job {{ $labels.job }} send GPU series (' + h + ') in cluster {{ $labels.' + l.cluster + ' }}, where job ' + $.exporter.job + ' (exporter.job) has no target: DCGMExporterDown watches up{job="' + $.exporter.job + '"} and cannot fire for them.',
      tests: [
        t.case(
          "another exporter job's name",
          true,
          [t.series($.exporter.healthField, '65x60', { job: other })],
          health=false,
          up='_x60',
          extra=[t.series('up', '1x60', { job: other, instance: '10.250.0.9:9400' })],
          target={ job: other },
          value=1,
        ),
        t.case("the catalog's job", false, []),
        t.case("a second exporter job beside the catalog's", false, [t.series($.exporter.healthField, '65x60', { job: other, instance: 'other-node:9400', [l.host]: 'other-node' })]),
      ],
      runbook: {
        meaning: 'GPU series (' + h + ') arrive in this cluster from exporter targets of a job (the job label of the alert), and the catalog watches job ' + $.exporter.job + ' (exporter.job), which has no target there.',
        impact: 'DCGMExporterDown reads up{job="' + $.exporter.job + '"}: when one of these exporters goes down nothing says so, and its GPUs read as missing instead. The target queries of the exporter runbooks select nothing.',
        queries: [
          q('Jobs sending GPU series', e.fill('count by (job) (group by (job, instance) ($(health)))', { health: $.exporter.health(is(l.cluster)) })),
          q("Targets of the catalog's job", e.fill('up{job="$(job)", $(cluster)}', { job: $.exporter.job, cluster: is(l.cluster) })),
        ],
        diagnosis: [
          step('Is the job one of the documented ones (' + std.join(', ', $.exporter.documentedJobs) + ": the GPU Operator's and the Helm chart's ServiceMonitors)?", 'Set exporter.job to the job your scrape configuration gives the exporter, and regenerate.', 'Someone scrapes the exporter under a job of their own: settle on one job name, in the scrape configuration and in exporter.job.'),
        ],
        mitigation: ['Set exporter.job to the job name the exporter targets carry (the GPU Operator: nvidia-dcgm-exporter) and regenerate; the ticket resolves once the catalog watches that job.'],
        escalation: rb.escalation.infra,
        dashboards: ['L2'],
      },
    },

    // The label profile self-check: GPU series without the host label the catalog expects
    // (an exporter version that names it differently) or without cluster. Inhibition and every
    // per-node alert compare those labels; without them they cannot work.
    DCGMExporterLabelMismatch: hw {
      local h = $.exporter.healthField,
      local health = $.exporter.health,
      local missing = [l.host] + (if $.exporter.clusterOnSeries then [l.cluster] else []),
      local otherHost = if l.host == 'Hostname' then 'hostname' else 'Hostname',
      family: 'exporter',
      severity: 'warning',
      // GPUs per target without each label (a branch never groups by the label it lacks).
      local without(m) =
        local by = std.join(', ', [x for x in [l.cluster, 'job', 'instance'] if x != m]);
        e.fill(|||
          count by ($(by)) (group by ($(by), $(uuid)) ($(health))) > 0
        |||, { by: by, uuid: l.uuid, health: health(e.match(m, '=', '')) }),
      expr: std.join(' or ', [without(m) for m in missing]),
      'for': '5m',
      identity: [l.cluster, 'job', 'instance'],
      summary: 'GPU series lack a label the catalog expects: per-node alerts and inhibition cannot work for them.',
      description: '{{ $value | printf "%.0f" }} GPUs reporting ' + $.exporter.healthText + ' through {{ $labels.job }} target {{ $labels.instance }} carry no ' + std.join(' or no ', missing) + ' label: the label profile (exporter.version ' + $.exporter.version + ', labels.host ' + l.host + ') does not match what this exporter sends.',
      tests: [
        t.case('exporter names the host label ' + otherHost, true, [t.series(h, '65x60', { [l.host]: '', [otherHost]: 'gpu-node-1', instance: '10.250.0.2:9400' })], target={ job: $.exporter.job, instance: '10.250.0.2:9400' }, value=1),
        t.case('labels as the profile says', false, []),
      ] + (if $.exporter.clusterOnSeries then [
             t.case(
               'series without ' + l.cluster,
               true,
               [t.series(h, '65x60', { [l.cluster]: '', instance: '10.250.0.3:9400' })],
               target={ job: $.exporter.job, instance: '10.250.0.3:9400' },
               without=[l.cluster],
               value=1,
             ),
           ] else []),
      runbook: {
        meaning: 'GPU series (' + $.exporter.healthText + ') from this exporter target lack the host label the catalog expects (' + l.host + ')' + (if $.exporter.clusterOnSeries then ' or the ' + l.cluster + ' label' else '') + '.',
        impact: 'Every alert and inhibit rule that compares the host or cluster of these GPUs sees an empty value: per-node grouping, the exporter-down and cordon inhibitions and the dashboards miss these GPUs. Nothing about them is silenced by mistake (inhibitions require the labels), but nothing is grouped right either.'
                + (
                  if $.alertmanager.inhibit.labelMismatch == 'DCGMExporterLabelMismatch' && $.alertmanager.inhibit.labelMismatchTargets != [] then ' While this ticket fires it silences, in its cluster, ' + std.join(
                    ', ',
                    $.alertmanager.inhibit.labelMismatchTargets,
                  ) + ' (every GPU reads as missing under its old labels); pages are never silenced by it.' else ''
                ),
        queries: [
          q('The labels the target really sends', e.fill('topk(1, $(health))', { health: health('job="$job", instance="$instance"') })),
          q('Targets sending series without the host label', e.fill('count by (job, instance) ($(health))', { health: health(e.fill('$(host)=""', { host: l.host })) })),
        ],
        diagnosis: [
          step('Does the series carry the other spelling of the host label (Hostname up to dcgm-exporter 4.8.2, hostname from 4.8.3)?', 'The exporter was upgraded or differs from exporter.version: set exporter.version (or exporter.hostLabel) in your catalog to match, and regenerate.'),
          step('Is the ' + l.cluster + ' label missing?', 'Add it by relabeling in the scrape config (or, with one Prometheus per cluster that names it only as an external label, set topology.clusterExternal: true).', 'Check the relabeling rules of the scrape config: one of them drops or renames the label.'),
        ],
        mitigation: ['Make the catalog and the exporter agree (exporter.version, exporter.hostLabel or relabeling) and regenerate; the alert resolves once the series carry the labels.'],
        escalation: rb.escalation.infra,
        dashboards: ['L2'],
      },
    },

    // The exporter's default counter set (the GPU Operator's default) instead of the generated
    // counter file: GPUs report the default fields but none of the counter file's own, so
    // every alert that needs one of those can never fire. One ticket per cluster; the runbook
    // lists the alerts it leaves blind. The exporter applies its counter file to every GPU of
    // its node, so the first GPU of each node (index 0) tells, at an eighth of the series.
    [if $.exporter.counterFileFields != [] then 'DCGMExporterStockCounterSet']: hw {
      local h = $.exporter.healthText,
      local fields = $.exporter.counterFileFields,
      family: 'exporter',
      severity: 'warning',
      // Each series on the first GPU of its node ({gpu="0"}).
      local reported(f) = e.fill(|||
        group by ($(cluster)) ($(field){$(gpu)="0"})
      |||, { cluster: l.cluster, field: f, gpu: l.gpu }),
      expr: e.fill(|||
        count by ($(cluster)) (group by ($(cluster), $(host)) ($(health))) unless on ($(cluster)) ($(counterFile))
      |||, { cluster: l.cluster, host: l.host, health: $.exporter.health(e.match(l.gpu, '=', '0')), counterFile: std.join(' or ', [reported(f) for f in fields]) }),
      // An exporter rollout replaces its pods within minutes; a counter file is missing for good.
      'for': '30m',
      identity: [l.cluster],
      summary: "GPUs report only the exporter's default fields: the alerts that need the counter file cannot fire.",
      description: '{{ $value | printf "%.0f" }} nodes of cluster {{ $labels.' + l.cluster + ' }} have reported ' + h + ' for ' + self['for'] + ' but none reports any field the counter file adds (' + std.join(', ', fields) + '): dcgm-exporter runs with its default counter set, so the alerts that need those fields (the runbook lists them) cannot fire. Deploy the generated counter file.',
      tests: [
        t.case('the exporter runs its default counter set', true, [], counterFile=false, target={}, value=1),
        t.case('two GPUs, default counter set: one node', true, [], gpus=2, counterFile=false, target={}, value=1),
        t.case('the counter file is deployed', false, []),
        t.case("the first GPU of two sends the counter file's fields", false, [t.series(fields[0], '0x60', entities=[0])], gpus=2, counterFile=false),
        t.case("the counter file's fields arrive late", false, [t.series(fields[0], '_x40 0x20')], counterFile=false),
      ],
      runbook: {
        local fields = $.exporter.counterFileFields,
        meaning: "The GPUs of the cluster (judged on the first GPU of each node: the exporter applies one counter file to all of a node's GPUs) report the exporter's default fields (" + h + ') but none reports any field that only the counter file collects (' + std.join(', ', fields) + "): dcgm-exporter runs with its default counter set (the GPU Operator's and the Helm chart's default) instead of the generated one.",
        impact: "Every alert that needs a field outside the default set can never fire in the cluster (listed below with the fields each needs); nothing else says so, and the dashboards' panels on those fields stay empty.",
        queries: [
          q("The counter file's fields the cluster reports", e.fill('count by (__name__) ({__name__=~"$(fields)", $(cluster)="$$(cluster)"})', { fields: std.join('|', fields), cluster: l.cluster })),
          q('GPUs per exporter target', e.fill('count by (job, instance) ($(health))', { health: $.exporter.health(e.fill('$(cluster)="$$(cluster)"', { cluster: l.cluster })) })),
        ],
        diagnosis: [
          step('Does the exporter run with --collectors (-f) pointing at the generated counter file?', 'The file is mounted but its fields do not arrive: check that the ConfigMap holds the generated file and that the exporter pods restarted after it changed.', 'Deploy the counter file: the GPU Operator reads it from the ConfigMap named in dcgmExporter.config.name, the Helm chart from its counter-file values.'),
        ],
        mitigation: [
          'Deploy the generated counter file (exporter/dcgm-counters.csv, or exporter/configmap.yaml for the GPU Operator, exporter/helm-values.yaml for the Helm chart) and restart the exporter pods; the ticket resolves once the fields arrive.',
        ],
        escalation: rb.escalation.infra,
        dashboards: ['L2'],
      },
    },

    // A GPU that stopped reporting is a fault only while its node is still there: a node the
    // autoscaler deleted takes its exporter target, GPU series and Kubernetes node away at
    // once, without an up == 0. The node is there while its other GPUs still report, or while
    // kube-state-metrics still lists it.
    GPUSeriesMissing: hw {
      family: 'exporter',
      severity: 'warning',
      local h = $.exporter.healthField,
      local health = $.exporter.health,
      local nodeInAPI = $.nodes.known,
      // A GPU is its UUID on its node, whatever its index (NVML renumbers the GPUs when a
      // reboot loses one) and its pod labels (one alert per GPU): missing is a UUID gone from
      // its node with no GPU reporting in its slot (bus id: an RMA swap puts a new UUID there).
      local gpu = [l.cluster, l.host, l.gpu, l.uuid, l.pciBusId, l.modelName],
      expr: e.fill(|||
        max by ($(gpu)) (
            $(present)
          unless on ($(cluster), instance) (up{job="$(exporter)"} == 0)
        )
        unless on ($(cluster), $(host), $(uuid)) $(health)
        unless on ($(cluster), $(host), $(slot)) $(inSlot)
        and on ($(cluster), $(host)) (
            group by ($(cluster), $(host)) ($(gpuInfo))
          or group by ($(cluster), $(host)) ($(nodeInAPI))
        )
      |||, {
        gpu: std.join(', ', gpu),
        present: e.fill('present_over_time($(health)[$(window)])', { health: health(), window: w.missing }),
        health: health(),
        inSlot: health(e.match(l.pciBusId, '!=', '')),
        cluster: l.cluster,
        host: l.host,
        exporter: $.exporter.job,
        uuid: l.uuid,
        slot: l.pciBusId,
        gpuInfo: names.gpuInfo,
        nodeInAPI: nodeInAPI,
      }),
      'for': '10m',
      summary: 'A GPU stopped reporting while its node is still in the cluster.',
      description: gpuText + ' stopped reporting (' + $.exporter.healthText + ') while its node is still in the cluster and its exporter is not down: the GPU may have fallen off the bus or the driver lost it.',
      // On Slurm, the node's series counts its GPUs: one lost (at minute 30; 24 samples).
      local unavailable = if $.scheduler == 'slurm' then [t.also('SLOGPUAvailabilityFastBurn', 24 / 60, target={ slo: 'GPUAvailability' }), t.also('SLOGPUAvailabilitySlowBurn', 24 / 61, target={ slo: 'GPUAvailability' })] else [],
      tests: [
        t.case('GPU vanished, its node still in the cluster', true, [], health='65x30 _x30', nodeInfo='1x60', value=1, alsoFires=unavailable),
        t.case('one of two GPUs vanished, no kube-state-metrics', true, [
          t.series(h, '65x30 _x30', entities=[0]),
          t.series(h, '65x60', entities=[1]),
        ], gpus=2, health=false, firing=[0], value=1),
        // The scenario's cluster has one node: with it gone, kube-state-metrics lists none.
        t.case('node deleted by the autoscaler', false, [], health='65x30 _x30', up='1x30 _x30', nodeInfo='1x30 _x30', alsoFires=[t.also($.alertmanager.inhibit.kubeStateMetricsDown, 1, target={})]),
        t.case('exporter down too', false, [], health='65x30 _x30', up='1x30 0x30', nodeInfo='1x60', alsoFires=[{ alert: 'DCGMExporterDown', value: 0 }]),
        t.case('pod changed on the GPU', false, [], health='65x30 _x30', extraHealth='_x31 65x29', nodeInfo='1x60'),
        // Its pod exited an hour ago, so the GPU's series with and without the pod labels are
        // both within the window: one alert, not two.
        t.case('GPU vanished after its pod exited', true, [t.series(h, '65x20 _x40'), t.series(h, '_x20 65x10 _x30', pod=false)], health=false, nodeInfo='1x60', value=1, alsoFires=unavailable),
        // (Without the bus id, as exporters before 3.x send: the UUID alone tells.)
        t.case(
          'a reboot renumbered the GPUs',
          false,
          [t.series(h, '65x30 _x30', labels={ [l.gpu]: '1', [l.pciBusId]: '' }), t.series(h, '_x31 65x29', labels={ [l.gpu]: '0', [l.pciBusId]: '' })],
          health=false,
          nodeInfo='1x60',
        ),
        t.case('an RMA swap: a new GPU in the same slot', false, [t.series(h, '65x30 _x30'), t.series(h, '_x31 65x29', labels={ [l.uuid]: 'GPU-replacement' })], health=false, nodeInfo='1x60'),
      ] + [
        // A GPU that sends only a later health field (a vGPU guest sends no temperature), or
        // whose first one stops while it goes on reporting, is there.
        t.case('a GPU that sends only ' + f, false, [t.series(f, '1000x60')], health=false, nodeInfo='1x60')
        for f in $.exporter.healthFields[1:]
      ] + [
        t.case('its ' + f + ' stops, its other health fields go on', false, [t.series(f, '65x30 _x30')] + [t.series(g, '1000x60') for g in $.exporter.healthFields if g != f], health=false, nodeInfo='1x60')
        for f in $.exporter.healthFields[:1]
        if std.length($.exporter.healthFields) > 1
      ],
      runbook: hardware(
        'A GPU stopped reporting any of its health fields (' + $.exporter.healthText + ') for ' + $.alerts.GPUSeriesMissing['for'] + ' while its node is still in the cluster (its other GPUs report, or kube-state-metrics lists the node) and its exporter is not down.',
        'The GPU is probably gone (fell off the bus, driver lost it): its jobs are dead and nothing else about it can alert. A node deleted by the autoscaler does not raise this alert: its GPUs and its Kubernetes node leave together.',
        [
          q('Which GPUs of the node still report', e.fill('group by ($(gpu), $(uuid)) ($(health))', { gpu: l.gpu, uuid: l.uuid, health: health(nodeSel[1:std.length(nodeSel) - 1]) })),
          q("Last XID of the node's GPUs", fill('last_over_time(DCGM_FI_DEV_XID_ERRORS$(nodeSel)[$(missing)])', { missing: $.windows.missing })),
          if $.scheduler == 'slurm' then q('Does Slurm still count the node', e.fill('slurm_node_gpus{$(node)="$$(host)"}', { node: $.slurm.nodeLabel, host: l.host }))
          else q('Is the node still in the Kubernetes API', e.fill('kube_node_info{$(node)="$$(host)"}', { node: l.node, host: l.host })),
        ],
        [
          step('Does `nvidia-smi` on the node list the GPU?', 'The exporter lost it: restart dcgm-exporter.', ''),
          step('Does the kernel log (`dmesg`) show XID 79 or "GPU has fallen off the bus"?', 'The GPU fell off the bus: follow GPUFellOffBus (drain, reboot, RMA if it repeats).', 'The driver lost the GPU another way: drain and reboot the node.'),
        ],
        [cordon, drain, 'Reboot the node; if the GPU does not come back, open an RMA.'],
      ) {
        notes: ['How a lost GPU reaches a human: dcgm-exporter often drops a GPU that fell off the bus instead of reporting XID 79 for long, so GPUFellOffBus (a page) may never fire. This ticket is the backstop: it fires ' + $.alerts.GPUSeriesMissing['for'] + ' after the GPU went silent. Treat it as urgent when `dmesg` shows XID 79.']
               + (
                 if std.member(
                   $.alertmanager.inhibit.labelMismatchTargets,
                   'GPUSeriesMissing',
                 ) && $.alertmanager.inhibit.labelMismatch != '' then ['While ' + $.alertmanager.inhibit.labelMismatch + ' fires in the cluster (an exporter upgrade renamed a label, so every GPU reads as missing under its old labels), this ticket is silenced there: fix the label profile first.'] else []
               ),
      },
    },
  },
}
