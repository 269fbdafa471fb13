// Runbooks: one page per alert (runbooks/<Alert>.md), generated from these entries.
//
// runbook: meaning, impact, notes (specifics such as XID codes), queries (first-look PromQL;
// $label stands for the value of the alert's label of that name), diagnosis (a flowchart:
// each step a check, what a yes means, and what a no means or '' to go on), mitigation,
// escalation, dashboards (levels L1..L5 of dashboards.libsonnet, most specific last).
local e = import 'lib/expr.libsonnet';
local rb = import 'lib/runbook.libsonnet';
{
  local l = $.labels,
  local is = rb.is,
  local sel(labels) = '{' + std.join(', ', [is(x) for x in labels]) + '}',
  local gpu = sel([l.cluster, l.host, l.uuid]),
  local node = sel([l.cluster, l.host]),
  local pod = sel([l.cluster, l.namespace, l.pod]),
  local q = rb.query,
  local step = rb.step,

  local cordon = rb.cordon(l.host),
  local drain = rb.drain(l.host),
  local reset = 'With no process on the GPU, reset it: `nvidia-smi --gpu-reset -i $' + l.gpu + '` (or reboot the node), then uncordon when the health checks pass.',
  local rma = 'If it fails again after the reset, keep the node cordoned and open an RMA with the GPU serial (`nvidia-smi -q -i $' + l.gpu + '`) and the XID/ECC history below.',
  local infraEscalation = 'Infrastructure on-call; hardware vendor support for RMAs.',
  local mlEscalation = 'ML platform team; the owning team of the namespace for workload changes.',

  local xidRunbook(class, meaning, impact) = {
    meaning: meaning,
    impact: impact,
    // Each code as NVIDIA's XID catalog describes it, with the action it gives (xids.libsonnet).
    local cite(code) =
      local x = std.get($.xidCatalog, std.toString(code), null);
      if x == null then 'XID ' + code + ": not in xidCatalog; look it up in NVIDIA's XID catalog."
      else 'XID ' + code + ', ' + x.name + (if std.objectHas(x, 'architectures') then ' (' + std.join(', ', x.architectures) + ')' else '')
           + ": NVIDIA's action " + x.action + ', ' + $.xidActions[x.action].todo + '.' + (if std.objectHas(x, 'note') then ' ' + x.note else ''),
    notes: [cite(c) for c in $.xid[class]] + [
      "An XID is new when it differs from the GPU's last XID at least " + $.windows.event + ' old, looked for up to ' + $.windows.gap + ' further back (windows.gap): a Prometheus restart or a scrape outage shorter than that does not announce held XIDs again. After a longer gap, an XID the GPU held before it is announced once more: check its L5 history before acting.',
    ],
    queries: [
      q('The last XID of this GPU', 'DCGM_FI_DEV_XID_ERRORS' + gpu),
    ] + (if $.exporter.xidCountField == null then [] else [
           q('Events of each XID code on this GPU (a repeat shows here, not in the last XID)', $.exporter.xidCountField + gpu),
         ]) + (if $.exporter.xidTotalField == null then [] else [
                 q('XIDs of each code on this GPU since its exporter started (a repeat shows here, not in the last XID)', $.exporter.xidTotalField + gpu),
               ]) + [
      q('XIDs on every GPU of the node', 'DCGM_FI_DEV_XID_ERRORS' + node + ' > 0'),
      q('Other XIDs in the fleet in the last hour (a fleet-wide pattern points at a driver)', 'count by (err_code) (changes(DCGM_FI_DEV_XID_ERRORS[1h]) > 0)'),
    ],
    diagnosis: [
      step('Does `nvidia-smi -q -i $' + l.gpu + '` on the node still see the GPU?', '', 'The GPU is gone from the bus: drain and reboot the node.'),
      step('Did other GPUs of the node report XIDs at the same time?', 'Suspect the node (PSU, baseboard, driver): drain the whole node.'),
      step('Did the same XID fire across many nodes at once?', 'Suspect a driver or firmware change: stop the rollout and escalate.'),
      step('Has this GPU had the same XID before (L5 dashboard)?', 'Repeat offender: drain, reset and open an RMA.', 'Reset the GPU when its job is done and watch it.'),
    ],
    mitigation: [cordon, drain, reset, rma],
    escalation: infraEscalation,
    dashboards: ['L3', 'L5'],
  },

  local hardware(meaning, impact, queries, diagnosis, mitigation) = {
    meaning: meaning,
    impact: impact,
    queries: queries,
    diagnosis: diagnosis,
    mitigation: mitigation,
    escalation: infraEscalation,
    dashboards: ['L3', 'L5'],
  },

  alerts+: {
    GPUFellOffBus+: { runbook: xidRunbook('fellOffBus', 'The GPU reported XID 79: the host lost it on the PCIe bus.', 'Every job on the GPU (often on the node) is dead; the GPU stops reporting until the node reboots.') },
    GPUXidFatal+: { runbook: xidRunbook('fatal', 'The GPU reported an XID that leaves it unusable until a reset (uncorrectable memory error, firmware halt, GSP failure).', 'Jobs on the GPU crashed or will; new work scheduled there fails.') },
    GPUXidHardware+: { runbook: xidRunbook('hardware', 'The GPU reported an XID that points at degrading hardware (memory rows, NVLink, ECC rate), not yet fatal.', 'Jobs keep running for now; the GPU may turn fatal. Plan the repair in working hours.') },
    GPUXidUnclassified+: { runbook: xidRunbook('fatal', "The GPU reported an XID that none of the catalog's classes (xid: " + std.join(', ', std.objectFields($.xid)) + ') lists: a code a newer driver emits, or one nobody classified yet.', 'Unknown until the code is looked up: some (154, GPU recovery action changed) mean the GPU needs a reset or the node a reboot.') {
      notes: ["Look the code up in NVIDIA's XID catalog for the driver the node runs, then add it to the class it belongs to in the catalog (xid), so that the right alert fires next time.", 'XID 154: GPU recovery action changed: the driver asks for a GPU reset or a node reboot; drain the node and do what it asks.'],
    } },
    GPUXidApplication+: { runbook: xidRunbook('application', 'The GPU reported an XID that is almost always caused by the application running on it.', 'Usually one job crashed; the GPU is fine. Repeats on one GPU across different jobs point at hardware.') { mitigation: ['Tell the job owner (namespace and pod are on the alert); check the job logs for the kernel or memory access that failed.', 'If the same GPU reports application XIDs for different jobs, treat it as hardware: ' + cordon] } },

    GPUEccDoubleBit+: { runbook: hardware(
      'The GPU logged uncorrectable (double-bit) ECC errors: data in its memory was corrupted.',
      'The running job computed on corrupted data or crashed; the GPU needs a reset before it can be trusted.',
      [
        q('Double-bit errors in the last hour', 'increase(DCGM_FI_DEV_ECC_DBE_VOL_TOTAL' + gpu + '[1h])'),
        q('Lifetime double-bit errors (persistent)', 'DCGM_FI_DEV_ECC_DBE_AGG_TOTAL' + gpu),
        q('Pending retirements and remaps', 'DCGM_FI_DEV_RETIRED_PENDING' + gpu + ' or DCGM_FI_DEV_ROW_REMAP_PENDING' + gpu),
        q('Row-remap failure (no spare rows left)', 'DCGM_FI_DEV_ROW_REMAP_FAILURE' + gpu),
      ],
      [
        step('Is DCGM_FI_DEV_ROW_REMAP_FAILURE 1?', 'The GPU is out of spare rows: RMA.'),
        step('Is a row remap or page retirement pending?', 'Reset the GPU to apply it, then watch for new errors.'),
        step('Has the lifetime counter grown over previous weeks?', 'Degrading memory: RMA.', 'A one-off: reset and watch.'),
      ],
      [cordon, drain, reset, rma],
    ) },

    GPUEccSingleBitRate+: { runbook: hardware(
      'The GPU corrects single-bit ECC errors at a high rate: its memory is degrading.',
      'No job is affected yet; a rising rate often precedes double-bit errors and row-remap exhaustion.',
      [
        q('Single-bit errors per hour', 'increase(DCGM_FI_DEV_ECC_SBE_VOL_TOTAL' + gpu + '[1h])'),
        q('Lifetime single-bit errors', 'DCGM_FI_DEV_ECC_SBE_AGG_TOTAL' + gpu),
        q('Pending remaps', 'DCGM_FI_DEV_ROW_REMAP_PENDING' + gpu),
      ],
      [
        step('Is the rate still rising over the last day?', 'Plan an RMA before it turns uncorrectable.'),
        step('Are row remaps pending?', 'Reset the GPU in the next maintenance window to apply them.', 'Watch it for a week.'),
      ],
      ['Schedule a reset in the next maintenance window to apply pending remaps.', 'If the rate keeps rising after the reset, drain the node and open an RMA.'],
    ) },

    // Shared by the page and its follow-up ticket, so that either can be removed alone.
    local rowRemapRunbook = hardware(
      'The GPU failed to remap a bad memory row: it has no spare rows left.',
      'New uncorrectable memory errors can no longer be contained; the GPU will corrupt data or crash jobs.',
      [q('Row-remap failure flag', 'DCGM_FI_DEV_ROW_REMAP_FAILURE' + gpu), q('Uncorrectable errors in the last day', 'increase(DCGM_FI_DEV_ECC_DBE_VOL_TOTAL' + gpu + '[1d])')],
      [step('Is the flag still 1 after a GPU reset?', 'The GPU must be replaced: RMA.', 'Watch it: a transient flag after a reset is rare, so check the DCGM diagnostics (`dcgmi diag -r 3`).')],
      [cordon, drain, rma],
    ) {
      notes: ['The page fires once, in the ' + $.windows.event + ' after the flag first appears; while the flag stays set, GPURowRemapFailureUnrepaired follows as a ticket until the node is cordoned.'],
    },
    GPURowRemapFailure+: { runbook: rowRemapRunbook },

    GPURowRemapFailureUnrepaired+: { runbook: rowRemapRunbook {
      meaning: 'A GPU that ran out of spare memory rows (paged as GPURowRemapFailure) is still in service: its node is not cordoned.',
      impact: 'New jobs can land on a GPU that will corrupt data or crash them.',
      diagnosis: [step('Is an RMA open for the GPU?', 'Cordon the node until it is replaced: the cordon silences this ticket.', 'Open one (see mitigation), then cordon the node.')],
      notes: ['This ticket repeats while the flag is set and the node schedulable; the cordon (GPUNodeCordoned) inhibits it.'],
    } },

    GPURetiredPagesPending+: { runbook: hardware(
      'Memory pages or rows were marked bad and wait for a GPU reset to be retired or remapped.',
      'Until the reset, the bad memory may still be used; errors there can crash jobs.',
      [q('Pending page retirements', 'DCGM_FI_DEV_RETIRED_PENDING' + gpu), q('Pending row remaps', 'DCGM_FI_DEV_ROW_REMAP_PENDING' + gpu)],
      [step('Is a job running on the GPU?', 'Reset when it ends: coordinate with the owner.', 'Reset now.')],
      [cordon, drain, reset],
    ) },

    local nvlinkRunbook(what) = hardware(
      "The GPU's NVLinks see " + what + ': the link between GPUs is noisy.',
      'Collective operations (AllReduce) slow down for every GPU of the job, not only this one: a multi-GPU job runs at the pace of its worst link.',
      [
        q('CRC errors per minute', '60 * rate(DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL' + gpu + '[5m])'),
        q('Replays and recoveries per minute', '60 * rate(DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL' + gpu + '[5m]) or 60 * rate(DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL' + gpu + '[5m])'),
        q('NVLink errors on every GPU of the node (one bad bridge shows on two GPUs)', 'sum by (' + l.gpu + ') (rate(DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL' + node + '[5m]))'),
        q('Is the job slowed down (straggler)?', 'ALERTS{alertname="GPUTrainingStraggler", ' + is(l.host) + '}'),
      ],
      [
        step('Do two GPUs of the node show errors on the links between them?', 'Suspect the NVSwitch tray or bridge: drain the node for hardware service.'),
        step('Did the errors start after a driver or firmware change?', 'Roll back and escalate to the vendor.'),
        step('Does `nvidia-smi nvlink -e -i $' + l.gpu + '` show the error counters still rising?', 'Drain and run `dcgmi diag -r 3`; open an RMA on failure.', 'A burst: watch it.'),
      ],
      [cordon, drain, 'Run the DCGM level-3 diagnostics (`dcgmi diag -r 3`) and reseat or replace the board or bridge.', rma],
    ),
    GPUNvlinkCrcErrors+: { runbook: nvlinkRunbook('CRC errors') },
    GPUNvlinkReplayErrors+: { runbook: nvlinkRunbook('many replayed transfers') },
    GPUNvlinkRecoveryErrors+: { runbook: nvlinkRunbook('link recoveries (retraining)') },

    GPUPcieReplayRate+: { runbook: hardware(
      'The GPU replays PCIe transfers often: the link to the host is noisy.',
      'Host-to-GPU transfers slow down (data loading, checkpoints); a failing link can end with the GPU falling off the bus.',
      [
        q('PCIe replays per minute', '60 * rate(DCGM_FI_DEV_PCIE_REPLAY_COUNTER' + gpu + '[5m])'),
        q('PCIe throughput', 'DCGM_FI_PROF_PCIE_RX_BYTES' + gpu + ' or DCGM_FI_PROF_PCIE_TX_BYTES' + gpu),
      ],
      [
        step('Does `nvidia-smi -q -i $' + l.gpu + ' -d PCIE` show a lower link width or generation than the slot supports?', 'Reseat the GPU or the riser.'),
        step('Do several GPUs behind the same PCIe switch replay?', 'Suspect the switch or the baseboard: hardware service.', 'Reseat this GPU; RMA if it continues.'),
      ],
      [cordon, drain, "Reseat the GPU and riser; check the slot's link width and generation.", rma],
    ) },

    local thermal(alert, what, field, limit) = hardware(
      "The GPU's " + what + ' has stayed above ' + e.num(limit) + ' °C for ' + $.alerts[alert]['for'] + '.',
      'The GPU throttles its clocks to protect itself: jobs slow down; sustained heat shortens its life.',
      [
        q(what + ' on every GPU of the node', field + node),
        q('Thermal throttling on the node', 'gpu:dcgm_clock_throttle_thermal:max' + node),
        q('Power draw against the limit', 'DCGM_FI_DEV_POWER_USAGE' + gpu),
      ],
      [
        step('Are all GPUs of the node hot?', 'Cooling problem on the node or rack (fans, airflow, inlet temperature): facilities.'),
        step('Is this GPU hot while its neighbours at the same load are not?', 'Suspect the heatsink or thermal paste: drain and service.', 'Heavy load within spec: keep watching.'),
      ],
      ["Check the node's fans and inlet temperature with the datacenter team.", cordon, 'If one GPU runs hot alone, drain it for hardware service.'],
    ),
    GPUTemperatureHigh+: { runbook: thermal('GPUTemperatureHigh', 'core temperature', 'DCGM_FI_DEV_GPU_TEMP', $.thresholds.gpuTemperatureCelsius) },
    GPUHotterThanFleetPeers+: { runbook: hardware(
      'The GPU has run over ' + e.num($.thresholds.gpuTemperatureAboveFleetPeersCelsius) + ' °C above the fleet-wide average of the GPUs of its SKU at its load for ' + $.alerts.GPUHotterThanFleetPeers['for'] + ' (busy: GPU_UTIL at least ' + e.percent($.thresholds.fleetPeersBusyUtilizationRatio) + ' %, else idle; the ' + e.num($.thresholds.fleetPeersCandidates) + ' hottest GPUs of each SKU and load in each cluster are compared: once this one is fixed, the next hot one shows).',
      'None yet: the GPU is below its throttle point. Left alone, a cooling fault reaches it and the jobs on the GPU slow down.',
      [
        q('Core temperature on every GPU of the node', 'DCGM_FI_DEV_GPU_TEMP' + node),
        q("The SKU's fleet-wide average, busy and idle", 'fleet_sku_load:dcgm_gpu_temp:avg'),
        q('Power draw (load) of the GPU', 'DCGM_FI_DEV_POWER_USAGE' + gpu),
      ],
      [
        step('Are all GPUs of the node or rack as hot?', 'Cooling of the node or rack (fans, airflow, inlet temperature): facilities.'),
        step('Is the GPU at the same load (power) as its neighbours?', 'Suspect its heatsink, fan or thermal interface: drain and service.', 'A heavier job explains part of it: keep watching.'),
      ],
      ["Check the node's fans and inlet temperature with the datacenter team.", cordon, 'If one GPU runs hot alone at equal load, drain it for hardware service.'],
    ) },
    GPUMemoryTemperatureHigh+: { runbook: thermal('GPUMemoryTemperatureHigh', 'memory (HBM) temperature', 'DCGM_FI_DEV_MEMORY_TEMP', $.thresholds.memoryTemperatureCelsius) },

    local throttling(reason, cause, fix) = hardware(
      'The GPU has had its clocks lowered by ' + $.throttleReasons[reason].help + ' for most of the last ' + $.windows.throttle + '.',
      'The job on the GPU runs slower than it should; in a multi-GPU job every rank waits for this one.',
      [
        q('The clock-event bitmask (decode it: 0x4 power cap, 0x8 HW slowdown, 0x20/0x40 thermal, 0x80 power brake)', $.exporter.throttleReasonsField + gpu),
        q('Share of the last ' + $.windows.throttle + ' throttled', 'avg_over_time(gpu:dcgm_clock_throttle_' + reason + ':max' + gpu + '[' + $.windows.throttle + '])'),
        q('SM clock', 'DCGM_FI_DEV_SM_CLOCK' + gpu),
        q('Power and temperature', 'DCGM_FI_DEV_POWER_USAGE' + gpu + ' or DCGM_FI_DEV_GPU_TEMP' + gpu),
      ],
      [
        step('Is the whole node throttled the same way?', 'Node-level cause (' + cause + '): fix the node.'),
        step('Did the throttling start with a new job?', 'The workload is at the limit: expected for power-heavy kernels; tell the owner.', fix),
      ],
      [fix, 'If the GPU throttles alone under normal load, ' + cordon + ' and have it serviced.'],
    ),
    GPUThermalThrottling+: { runbook: throttling('thermal', 'cooling, inlet temperature', 'Check cooling (fans, airflow); drain the node if one GPU throttles alone.') },
    GPUPowerThrottling+: { runbook: throttling('power', 'power capping, PSU, rack power budget', "Check the power limit (`nvidia-smi -q -d POWER`) against the SKU default and the rack's power budget.") },
    GPUHwSlowdown+: { runbook: throttling('hw_slowdown', 'external power brake, PSU or overheating board', 'HW slowdown is signalled by the board (power brake, overtemperature): have the node serviced.') },

    DCGMExporterDown+: { runbook: exporterDownRunbook },
    DCGMExporterScrapesFailing+: { runbook: exporterDownRunbook {
      meaning: 'A dcgm-exporter target is up, but a share of its scrapes fails.',
      impact: 'GPU series have gaps: rates and alerts with `for` become unreliable for that node.',
      mitigation: ['Raise the scrape timeout or trim the counter file if scrapes are slow.', 'Restart the exporter if DCGM answers slowly; drain the node if DCGM keeps hanging.'],
    } },
    local exporterDownRunbook = {
      meaning: 'Prometheus cannot scrape a dcgm-exporter target.',
      impact: 'Every GPU alert for the GPUs of that node is blind: nothing fires, whatever happens.',
      queries: [
        q("The target's up series", 'up{job="' + $.exporter.job + '", ' + is(l.cluster) + ', instance="$instance"}'),
        q('Scrape duration against the timeout', 'scrape_duration_seconds{job="' + $.exporter.job + '", instance="$instance"}'),
      ],
      diagnosis: [
        step('Is the exporter pod running (`kubectl -n gpu-operator get pods -o wide | grep $instance`)?', '', 'Restart it; check why it crashed (`kubectl logs --previous`).'),
        step('Is the node itself NotReady?', 'Node problem: follow the node runbook.'),
        step('Does the scrape time out (DCGM hangs, often after an XID)?', 'Restart the exporter; if DCGM hangs again, drain the node.', 'Check network policies and the ServiceMonitor.'),
      ],
      mitigation: ['Restart the dcgm-exporter pod on the node.', 'If DCGM itself hangs, drain the node and restart the NVIDIA host engine or reboot.'],
      escalation: infraEscalation,
      dashboards: ['L2', 'L3'],
    },

    DCGMExporterLabelMismatch+: { runbook: {
      meaning: 'GPU series of ' + $.exporter.healthField + ' from this exporter target lack the host label the catalog expects (' + l.host + ')' + (if $.exporter.clusterOnSeries then ' or the ' + l.cluster + ' label' else '') + '.',
      impact: 'Every alert and inhibit rule that compares the host or cluster of these GPUs sees an empty value: per-node grouping, the exporter-down and cordon inhibitions and the dashboards miss these GPUs. Nothing about them is silenced by mistake (inhibitions require the labels), but nothing is grouped right either.'
              + (if $.alertmanager.inhibit.labelMismatch == 'DCGMExporterLabelMismatch' && $.alertmanager.inhibit.labelMismatchTargets != [] then ' While this ticket fires it silences, in its cluster, ' + std.join(', ', $.alertmanager.inhibit.labelMismatchTargets) + ' (every GPU reads as missing under its old labels); pages are never silenced by it.' else ''),
      queries: [
        q('The labels the target really sends', 'topk(1, ' + $.exporter.healthField + '{job="$job", instance="$instance"})'),
        q('Targets sending series without the host label', 'count by (job, instance) (' + $.exporter.healthField + '{' + l.host + '=""})'),
      ],
      diagnosis: [
        step('Does the series carry the other spelling of the host label (Hostname up to dcgm-exporter 4.8.2, hostname from 4.8.3)?', 'The exporter was upgraded or differs from exporter.version: set exporter.version (or exporter.hostLabel) in your catalog to match, and regenerate.'),
        step('Is the ' + l.cluster + ' label missing?', 'Add it by relabeling in the scrape config (or, with one Prometheus per cluster and cluster as an external label, set exporter.clusterOnSeries:: false).', 'Check the relabeling rules of the scrape config: one of them drops or renames the label.'),
      ],
      mitigation: ['Make the catalog and the exporter agree (exporter.version, exporter.hostLabel or relabeling) and regenerate; the alert resolves once the series carry the labels.'],
      escalation: infraEscalation,
      dashboards: ['L2'],
    } },


    [if $.exporter.counterFileFields != [] then 'DCGMExporterStockCounterSet']+: { runbook: {
      local fields = $.exporter.counterFileFields,
      meaning: "The GPUs of the cluster (judged on the first GPU of each node: the exporter applies one counter file to all of a node's GPUs) report the exporter's default fields (" + $.exporter.healthField + ') but none reports any field that only the counter file collects (' + std.join(', ', fields) + "): dcgm-exporter runs with its default counter set (the GPU Operator's and the Helm chart's default) instead of the generated one.",
      impact: "Every alert that needs a field outside the default set can never fire in the cluster (listed below with the fields each needs); nothing else says so, and the dashboards' panels on those fields stay empty.",
      queries: [
        q("The counter file's fields the cluster reports", 'count by (__name__) ({__name__=~"' + std.join('|', fields) + '", ' + l.cluster + '="$' + l.cluster + '"})'),
        q('GPUs per exporter target', 'count by (job, instance) (' + $.exporter.healthField + '{' + l.cluster + '="$' + l.cluster + '"})'),
      ],
      diagnosis: [
        step('Does the exporter run with --collectors (-f) pointing at the generated counter file?', 'The file is mounted but its fields do not arrive: check that the ConfigMap holds the generated file and that the exporter pods restarted after it changed.', 'Deploy the counter file: the GPU Operator reads it from the ConfigMap named in dcgmExporter.config.name, the Helm chart from its counter-file values.'),
      ],
      mitigation: [
        'Deploy the generated counter file (exporter/dcgm-counters.csv, or exporter/configmap.yaml for the GPU Operator, exporter/helm-values.yaml for the Helm chart) and restart the exporter pods; the ticket resolves once the fields arrive.',
      ],
      escalation: infraEscalation,
      dashboards: ['L2'],
    } },

    GPUSeriesMissing+: { runbook: hardware(
      'A GPU stopped reporting its health field (' + $.exporter.healthField + ') for ' + $.alerts.GPUSeriesMissing['for'] + ' while its node is still in the cluster (its other GPUs report, or kube-state-metrics lists the node) and its exporter is not down.',
      'The GPU is probably gone (fell off the bus, driver lost it): its jobs are dead and nothing else about it can alert. A node deleted by the autoscaler does not raise this alert: its GPUs and its Kubernetes node leave together.',
      [
        q('Which GPUs of the node still report', 'group by (' + l.gpu + ', ' + l.uuid + ') (' + $.exporter.healthField + node + ')'),
        q("Last XID of the node's GPUs", 'last_over_time(DCGM_FI_DEV_XID_ERRORS' + node + '[' + $.windows.missing + '])'),
        q('Is the node still in the Kubernetes API', 'kube_node_info{' + l.node + '="$' + l.host + '"}'),
      ],
      [
        step('Does `nvidia-smi` on the node list the GPU?', 'The exporter lost it: restart dcgm-exporter.', ''),
        step('Does the kernel log (`dmesg`) show XID 79 or "GPU has fallen off the bus"?', 'The GPU fell off the bus: follow GPUFellOffBus (drain, reboot, RMA if it repeats).', 'The driver lost the GPU another way: drain and reboot the node.'),
      ],
      [cordon, drain, 'Reboot the node; if the GPU does not come back, open an RMA.'],
    ) {
      notes: ['How a lost GPU reaches a human: dcgm-exporter often drops a GPU that fell off the bus instead of reporting XID 79 for long, so GPUFellOffBus (a page) may never fire. This ticket is the backstop: it fires ' + $.alerts.GPUSeriesMissing['for'] + ' after the GPU went silent. Treat it as urgent when `dmesg` shows XID 79.']
             + (if std.member($.alertmanager.inhibit.labelMismatchTargets, 'GPUSeriesMissing') && $.alertmanager.inhibit.labelMismatch != '' then ['While ' + $.alertmanager.inhibit.labelMismatch + ' fires in the cluster (an exporter upgrade renamed a label, so every GPU reads as missing under its old labels), this ticket is silenced there: fix the label profile first.'] else []),
    } },

    GPUAllocatedIdle+: { runbook: {
      meaning: 'A pod has held this GPU (or MIG instance) for ' + $.alerts.GPUAllocatedIdle['for'] + ' with its engine under ' + e.percent($.thresholds.idleActivity) + ' % active.',
      impact: 'The GPU costs money and blocks other jobs while doing nothing.',
      queries: [
        q("Engine activity of the pod's GPUs", 'DCGM_FI_PROF_GR_ENGINE_ACTIVE' + pod),
        q('Idle cost of the namespace, $/hour', 'namespace:gpu_idle_cost_dollars_per_hour:sum{' + is(l.cluster) + ', ' + is(l.namespace) + '}'),
        q('How long the pod has existed', 'time() - kube_pod_created{namespace="$' + l.namespace + '", pod="$' + l.pod + '"}'),
      ],
      diagnosis: [
        step('Is the pod a notebook or interactive session?', 'Ask the owner to release the GPU; apply the idle-session policy.'),
        step('Is the job waiting on data or a checkpoint (CPU, I/O, network busy)?', 'Input pipeline bottleneck: tell the owner.'),
        step('Did the job finish but the pod stayed (sleep, stuck process)?', "Ask the owner to delete it; fix the job's exit."),
      ],
      mitigation: ['Contact the namespace owner with the idle cost.', "For abandoned pods, delete them according to the platform's idle policy."],
      escalation: mlEscalation,
      dashboards: ['L4', 'L5'],
    } },

    GPUClusterAllocationHigh+: { runbook: {
      meaning: 'Pods request more than ' + e.percent($.thresholds.clusterAllocationRatio) + " % of the cluster's allocatable GPUs.",
      impact: 'New GPU pods stay Pending; autoscaled inference cannot scale out.',
      queries: [
        q('Allocation ratio', 'cluster:kube_gpu_allocation:ratio{' + is(l.cluster) + '}'),
        q('Requests by namespace', 'sort_desc(namespace:kube_gpu_requested:sum{' + is(l.cluster) + '})'),
        q('Allocated but idle GPUs', 'count(ALERTS{alertname="GPUAllocatedIdle", ' + is(l.cluster) + ', alertstate="firing"})'),
        q('Pending GPU pods', 'count(kube_pod_status_phase{phase="Pending", ' + is(l.cluster) + '} * on (namespace, pod) group_left () max by (namespace, pod) (kube_pod_container_resource_requests{resource=~"' + $.kubeStateMetrics.gpuResources + '"}))'),
      ],
      diagnosis: [
        step('Are many allocated GPUs idle?', 'Reclaim them first (GPUAllocatedIdle).'),
        step('Is one namespace far above its usual share?', 'Talk to that team; enforce quotas.', 'Real demand: add capacity.'),
      ],
      mitigation: ['Reclaim idle allocations.', 'Add nodes or shift work to another cluster.', 'Set ResourceQuotas per namespace.'],
      escalation: mlEscalation + ' Capacity planning for new hardware.',
      dashboards: ['L1', 'L2'],
    } },

    GPUTrainingStraggler+: { runbook: {
      meaning: 'One GPU of a multi-GPU job runs far below the median SM activity of its siblings while they stay busy.',
      impact: "Synchronous training waits for the slowest rank: the whole job runs at this GPU's pace.",
      queries: [
        q('SM activity of every GPU of the job', 'gpu_pod:dcgm_sm_active:avg10m{' + is(l.cluster) + ', ' + is(l.namespace) + ', owner_name="$owner_name"}'),
        q('NVLink errors on the slow GPU', '60 * rate(DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL' + gpu + '[5m])'),
        q('Throttling of the slow GPU', 'gpu:dcgm_clock_throttle_thermal:max' + gpu + ' or gpu:dcgm_clock_throttle_power:max' + gpu),
        q('Other alerts on the slow GPU', 'ALERTS{' + is(l.uuid) + ', alertstate="firing"}'),
      ],
      diagnosis: [
        step('Does the slow GPU have NVLink or PCIe errors (GPUNvlinkCrcErrors, GPUPcieReplayRate)?', 'Hardware: follow that runbook; restart the job without the node.'),
        step('Is the slow GPU throttled (thermal or power)?', 'Cooling or power: follow the throttling runbook.'),
        step('Does the slow rank have more data or a different shard (data imbalance)?', 'Workload: rebalance the input pipeline.', 'Profile the rank (Nsight Systems) and escalate to the ML platform team.'),
      ],
      mitigation: ['If the GPU is faulty, cordon its node and restart the job from its last checkpoint elsewhere.', 'Otherwise give the owner the per-rank view to fix the imbalance.'],
      escalation: mlEscalation,
      dashboards: ['L4', 'L5'],
    } },

    local inferenceRunbook(meaning, impact, queries, diagnosis, mitigation) = {
      meaning: meaning,
      impact: impact,
      queries: queries,
      diagnosis: diagnosis,
      mitigation: mitigation,
      escalation: mlEscalation,
      dashboards: ['L4'],
    },
    local serverMatchers = is(l.cluster) + ', namespace="$namespace", pod="$pod"',
    local server = '{' + serverMatchers + '}',
    GPUInferenceKVCachePressure+: { runbook: inferenceRunbook(
      'A vLLM server has kept its KV cache over ' + e.percent($.thresholds.kvCacheUsageRatio) + ' % full for ' + $.alerts.GPUInferenceKVCachePressure['for'] + ' and preempts requests.',
      'Preempted requests are recomputed: time to first token and latency rise; throughput falls.',
      [
        q('KV-cache usage', $.inference.kvCacheUsage + server),
        q('Preemptions per minute', '60 * rate(' + $.inference.preemptions + server + '[5m])'),
        q('Running and waiting requests', $.inference.waiting + server + ' or vllm:num_requests_running' + server),
      ],
      [
        step('Did traffic or prompt length rise?', 'Scale out replicas.'),
        step('Was max-num-seqs or gpu-memory-utilization changed in a recent release?', 'Roll back the configuration.', 'Give the model more KV cache (larger GPU, tensor parallelism, quantised KV cache).'),
      ],
      ['Scale out the deployment.', 'Lower max-num-seqs or raise gpu-memory-utilization, within memory limits.'],
    ) },
    GPUInferenceMetricMissing+: { runbook: inferenceRunbook(
      'A vLLM server reports ' + $.inference.running + ' but not a metric the generated rules read under its configured name (the alert names it).',
      'Every rule, SLO and alert on that metric is silent for the server: a KV cache full, a queue growing or preemptions go unnoticed.',
      [
        q('What the server exports', 'count by (__name__) ({__name__=~"vllm:.*", ' + is(l.cluster) + ', namespace="$namespace", pod="$pod"})'),
      ],
      [
        step('Does the server export the metric under another name (vLLM renames them between releases)?', 'Set the new name in the catalog (inference: kvCacheUsage, waiting, preemptions) and regenerate.', 'The metrics endpoint may be filtered (relabeling drops it): check the scrape config.'),
      ],
      ['Point the catalog at the names your vLLM version exports, regenerate and deploy the rules.'],
    ) },

    GPUInferenceQueueGrowing+: { runbook: inferenceRunbook(
      "Requests keep piling up in a vLLM server's waiting queue.",
      'Queued requests wait before their first token: the TTFT SLO burns.',
      [
        q('Waiting requests', $.inference.waiting + server),
        q('Queue time p99', $.histograms.quantile(0.99, $.inference.queueTime, [], '5m', serverMatchers)),
        q('TTFT SLO burn', 'slo:error_budget:burn_rate{slo="InferenceTTFT", namespace="$namespace"}'),
      ],
      [
        step('Did incoming traffic grow?', 'Scale out; check the autoscaler.', 'A slow replica: check its GPU (throttling, errors) on the L4 dashboard.'),
      ],
      ['Scale out the deployment.', 'Shed or rate-limit low-priority traffic.'],
    ) },

    GPUMemoryExhaustionRisk+: { runbook: {
      meaning: 'The GPU memory a pod uses grows steadily; at this rate it runs out within ' + $.thresholds.memoryForecastHours + ' hours.',
      impact: 'The job will crash with CUDA out-of-memory, typically hours into a run.',
      queries: [
        q('Memory used and free', 'DCGM_FI_DEV_FB_USED' + gpu + ' or DCGM_FI_DEV_FB_FREE' + gpu),
        q('Growth per hour', 'deriv(DCGM_FI_DEV_FB_USED' + gpu + '[1h]) * 3600'),
      ],
      diagnosis: [
        step("Does the framework's allocated memory grow (torch.cuda.memory_allocated)?", 'A leak in the job: tensors kept alive across steps.'),
        step('Does reserved memory grow while allocated stays flat?', 'Fragmentation: set PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True or bucket sizes.', 'Caching by design: watch it.'),
      ],
      mitigation: ['Tell the owner before the crash: checkpoint now.', 'Plan a restart from the checkpoint with the leak or allocator setting fixed.'],
      escalation: mlEscalation,
      dashboards: ['L4', 'L5'],
    } },

    GPUDriverVersionSkew+: { runbook: {
      meaning: 'GPUs of one cluster run more than one NVIDIA driver version.',
      impact: 'CUDA images built for the newer driver fail on older nodes ("driver insufficient"); results may differ between nodes.',
      queries: [
        q('GPUs per driver version', 'count by (' + l.driverVersion + ') (group by (' + std.join(', ', $.identity.gpuJoin) + ', ' + l.driverVersion + ') (' + $.exporter.healthField + '{' + is(l.cluster) + '}))'),
        q('Nodes per driver version', 'count by (' + l.driverVersion + ') (group by (' + l.host + ', ' + l.driverVersion + ') (' + $.exporter.healthField + '{' + is(l.cluster) + '}))'),
      ],
      diagnosis: [
        step('Is a driver rollout in progress?', 'Check that it progresses; the alert clears when it ends.', 'Find the nodes on the old version: they missed the image or rollout.'),
      ],
      mitigation: ['Finish or roll back the driver rollout.', "Reimage the stragglers with the fleet's node image."],
      escalation: infraEscalation,
      dashboards: ['L2'],
    } },
  },
}
