// How dcgm-exporter and kube-state-metrics label their series, as configuration.
local e = import 'lib/expr.libsonnet';
local names = import 'lib/names.libsonnet';
{
  // What changes between dcgm-exporter versions: the host label ('Hostname' up to 4.8.2,
  // 'hostname' from 4.8.3), from 4.8.3 the exporter's cumulative counters, its health check and
  // the recovery action, the driver-version label, the name of the clock-event bitmask, and
  // in 4.9 the units of eleven fields (clocks MHz->Hz, energy mJ->J, utilization %->ratio,
  // framebuffer MiB->bytes, NVLink bandwidth). 4.9 also renames fields that DCGM 4.7
  // deprecates; those names are not modelled here yet (see README). 4.10 renames the PCIe and
  // NVLink byte rates (fieldRenames).
  //
  // The fields dcgm-exporter renamed, by the version that renamed them: name before -> name
  // after. A profile from that version on exports the new names (its fieldNames); lint maps a
  // rule's or counter file's name of the other side to the catalog's.
  fieldRenames:: {
    '4.10': {
      DCGM_FI_PROF_PCIE_TX_BYTES: 'DCGM_FI_PROF_PCIE_TX_BYTES_PER_SECOND',
      DCGM_FI_PROF_PCIE_RX_BYTES: 'DCGM_FI_PROF_PCIE_RX_BYTES_PER_SECOND',
      DCGM_FI_PROF_NVLINK_TX_BYTES: 'DCGM_FI_PROF_NVLINK_TX_BYTES_PER_SECOND',
      DCGM_FI_PROF_NVLINK_RX_BYTES: 'DCGM_FI_PROF_NVLINK_RX_BYTES_PER_SECOND',
    },
  },
  // Exporters a cloud runs for the team, without a counter file of the team's: the job its
  // scrape gives the series, and the fields it sends (null: dcgm-exporter's default set). GKE's
  // managed DCGM package (namespace gke-managed-system, scraped by its ClusterPodMonitoring
  // gke-managed-dcgm-exporter) sends a fixed set with profiling fields and no XID or ECC field;
  // AKS' managed GPU metrics run the exporter as a node service with its default counter file,
  // scraped by the managed Prometheus' dcgm-exporter job.
  managedExporters:: {
    gke: {
      job: 'gke-managed-dcgm-exporter',
      fields: [
        'DCGM_FI_DEV_SM_CLOCK',
        'DCGM_FI_DEV_GPU_TEMP',
        'DCGM_FI_DEV_MEMORY_TEMP',
        'DCGM_FI_DEV_POWER_USAGE',
        'DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION',
        'DCGM_FI_DEV_GPU_UTIL',
        'DCGM_FI_DEV_MEM_COPY_UTIL',
        'DCGM_FI_DEV_FB_FREE',
        'DCGM_FI_DEV_FB_USED',
        'DCGM_FI_DEV_FB_TOTAL',
        'DCGM_FI_PROF_GR_ENGINE_ACTIVE',
        'DCGM_FI_PROF_SM_ACTIVE',
        'DCGM_FI_PROF_DRAM_ACTIVE',
        'DCGM_FI_PROF_PIPE_TENSOR_ACTIVE',
        'DCGM_FI_PROF_PIPE_FP64_ACTIVE',
        'DCGM_FI_PROF_PIPE_FP32_ACTIVE',
        'DCGM_FI_PROF_PIPE_FP16_ACTIVE',
        'DCGM_FI_PROF_PCIE_TX_BYTES',
        'DCGM_FI_PROF_PCIE_RX_BYTES',
        'DCGM_FI_PROF_NVLINK_TX_BYTES',
        'DCGM_FI_PROF_NVLINK_RX_BYTES',
      ],
    },
    aks: { job: 'dcgm-exporter', fields: null },
  },
  exporterProfiles:: {
    local base = {
      hostLabel: 'Hostname',
      driverLabel: 'DCGM_FI_DRIVER_VERSION',
      throttleReasonsField: 'DCGM_FI_DEV_CLOCK_THROTTLE_REASONS',
      units: {},
      fieldNames: {},
      // The exporter's own XID counts: per code within a window (up to 4.8.2), or per code
      // since the exporter started (4.8.3 and later).
      xidCountField: 'DCGM_EXP_XID_ERRORS_COUNT',
      xidTotalField: null,
      // What DCGM 4 and the exporters that ship it add: the clock-event counter, the
      // exporter's DCGM health check and the driver's recovery action.
      clockEventsTotalField: null,
      healthStatusField: null,
      recoveryActionField: null,
    },
    local dcgm4 = {
      hostLabel: 'hostname',
      xidCountField: null,
      xidTotalField: 'DCGM_EXP_XID_ERRORS_TOTAL',
      clockEventsTotalField: 'DCGM_EXP_CLOCK_EVENTS_TOTAL',
      healthStatusField: 'DCGM_EXP_GPU_HEALTH_STATUS',
      recoveryActionField: 'DCGM_FI_DEV_GPU_RECOVERY_ACTION',
    },
    '4.8.2': base,
    '4.8.3': base + dcgm4,
    '4.9': base + dcgm4 {
      // Fill in the renamed fields as your exporter exports them (catalog name: exporter
      // name); every generated file follows.
      fieldNames: {},
      driverLabel: 'DCGM_FI_SYSTEM_DRIVER_VERSION',
      throttleReasonsField: 'DCGM_FI_DEV_CLOCKS_EVENT_REASONS',
      units: {
        DCGM_FI_DEV_SM_CLOCK: 'Hz',
        DCGM_FI_DEV_MEM_CLOCK: 'Hz',
        DCGM_FI_DEV_MAX_SM_CLOCK: 'Hz',
        DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION: 'joules',
        DCGM_FI_DEV_GPU_UTIL: 'ratio',
        DCGM_FI_DEV_MEM_COPY_UTIL: 'ratio',
        DCGM_FI_DEV_ENC_UTIL: 'ratio',
        DCGM_FI_DEV_DEC_UTIL: 'ratio',
        DCGM_FI_DEV_FB_FREE: 'bytes',
        DCGM_FI_DEV_FB_USED: 'bytes',
        DCGM_FI_DEV_FB_RESERVED: 'bytes',
        DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL: 'bytes_per_second',
      },
    },
    // 4.10: 4.9's labels and units, the byte rates under their new names.
    '4.10': self['4.9'] { fieldNames+: $.fieldRenames['4.10'] },
  },

  local profile = $.exporterProfiles[$.exporter.version],
  fields: std.mapWithKey(function(name, f) if std.objectHas(profile.units, name) then f { unit: profile.units[name] } else f, super.fields),

  exporter: {
    // The dcgm-exporter version: 4.8.2 (and older), 4.8.3 (4.8.3 to 4.8.x), 4.9 or 4.10.
    version: '4.8.2',
    // The fields dcgm-exporter renamed, by version (see fieldRenames): lint reads them.
    fieldRenames: $.fieldRenames,
    // The GPU platforms the exporters run on, for the fields only some GPUs report
    // (platformFields in fields.libsonnet): 'hgx' (GPU boards of x86 servers, NVLink 4 and
    // older) or 'gb200' (Grace Blackwell NVL72 racks, alone or beside HGX nodes: NVLink 5,
    // NVLink-C2C and the NVLink fabric's health; their alerts, panels and counter rows).
    platform: 'hgx',
    // '' where the team runs dcgm-exporter, or the cloud that runs it for the team: 'gke'
    // (GKE's managed DCGM metrics) or 'aks' (AKS' managed GPU metrics), see managedExporters.
    // A managed exporter reads no counter file of the team's: no counter-file alert, and the
    // fields it sends are what the rules can read (gpuobs generate names the alerts left
    // blind).
    managed: '',
    local managed = if self.managed == '' then null else $.managedExporters[self.managed],
    // The fields a managed exporter sends (null: the team's counter set, or the default set).
    managedFields: if managed == null then null else managed.fields,
    // Prometheus job of the dcgm-exporter targets: dcgm-exporter under the Helm chart's
    // ServiceMonitor, nvidia-dcgm-exporter under the GPU Operator's (DCGMExporterJobMismatch
    // tickets a cluster whose GPU series arrive under another job than this one), the managed
    // exporter's job where a cloud runs it.
    job: if managed == null then 'dcgm-exporter' else managed.job,
    // The jobs the exporter's own installs give its targets (the Helm chart's ServiceMonitor,
    // the GPU Operator's), and one of them other than the catalog's, for the scenarios of an
    // exporter under another job.
    documentedJobs:: ['dcgm-exporter', 'nvidia-dcgm-exporter'],
    otherJob:: [j for j in self.documentedJobs if j != self.job][0],
    // Host label, from the version; override if you relabel.
    hostLabel: profile.hostLabel,
    // Every spelling of the host label dcgm-exporter has sent (up to 4.8.2, and from 4.8.3).
    hostLabels:: std.set([p.hostLabel for p in std.objectValues($.exporterProfiles)]),
    // Catalog field name -> the name the exporter exports, where they differ.
    fieldNames: profile.fieldNames,
    // Where a workload's pod arrives needs no setting: the rules read both ways a scrape
    // delivers it. dcgm-exporter labels a GPU a pod holds with the pod's namespace, pod and
    // container (and nothing on a GPU no pod holds). A ServiceMonitor with honorLabels: false
    // (the default of the dcgm-exporter chart's and of the GPU Operator's) gives every series
    // its target's own labels, the exporter's pod, and renames the exporter's to
    // exported_namespace, exported_pod and exported_container (labels.exportedNamespace, ...);
    // with honorLabels: true the exporter's win, and a GPU no pod holds takes the target's
    // pod (the exporter's own); a plain scrape job without Kubernetes' target labels leaves
    // such a GPU with none. workload() moves the exported_* values where the catalog reads the
    // pod, and the up series of the series' own target (same instance), matched on the pod
    // labels, tells the exporter's own pod from a workload's, whatever the job: attributed()
    // keeps a series only where its pod is not its target's, unattributed() reads the others
    // as no pod's.
    ownPodTargets: e.fill(|||
      on ($(labels)) up
    |||, { labels: std.join(', ', [$.labels.cluster, 'instance', $.labels.namespace, $.labels.pod]) }),
    local targets = self.ownPodTargets,
    local slurm = $.scheduler == 'slurm',
    // The labels that name a target's own pod on its up series (and so on its alerts):
    // namespace, pod, container; none on Slurm, whose exporters are scraped as hosts.
    targetPodLabels: if slurm then [] else [$.labels.namespace, $.labels.pod, $.labels.container],
    // The exporter pod of a host as its series carry it, for the scenarios.
    targetPod(host)::
      local names = self.targetPodLabels;
      if slurm then {} else { [names[0]]: 'gpu-operator', [names[1]]: 'nvidia-dcgm-exporter-' + host, [names[2]]: 'nvidia-dcgm-exporter' },
    // The series of an expression over the exporter's series with the workload's pod, where a
    // scrape renamed it exported_*, copied to the labels the catalog reads it by (on Slurm,
    // the series as they are: the job is the exporter's own label).
    workload(series)::
      local l = $.labels;
      if slurm then series
      else std.foldl(function(expr, names) e.fill(|||
        label_replace($(expr), "$(to)", "$1", "$(from)", "(.+)")
      |||, { expr: expr, to: names[0], from: names[1] }), [[l.namespace, l.exportedNamespace], [l.pod, l.exportedPod]], series),
    // The series of an expression over the exporter's series that a workload's pod holds, the
    // pod where the catalog reads it; on Slurm, that a job holds (series is a selector there:
    // the job's matcher is added to it).
    attributed(series)::
      if slurm then (
        local held = $.labels.job + '!=""';
        if std.endsWith(series, '}') then std.rstripChars(series, '}') + ', ' + held + '}' else series + '{' + held + '}'
      )
      else e.fill('($(series) unless $(targets))', { series: $.exporter.workload(series), targets: targets }),
    // The series that no workload's pod (no job) holds, of a selector that select(matchers)
    // writes with the given matchers (a selector's inside) added.
    unattributedOf(select)::
      local l = $.labels;
      local notExported = l.exportedPod + '=""';
      if slurm then select(l.job + '=""')
      else e.fill('($(noPod) or $(notExported) and $(targets))', { noPod: select(e.inside([notExported, l.pod + '=""'])), notExported: select(notExported), targets: targets }),
    // The series of metric (with matchers, a selector's inside) that no workload's pod holds.
    unattributed(metric, matchers='')::
      self.unattributedOf(function(m) metric + '{' + e.inside([matchers, m]) + '}'),
    // What Go derives its rules from (plan: the namespace rollups, which GPU a pod holds):
    // workload() and attributed() of <series>, and the health series no workload's pod holds.
    workloadTemplate: self.workload('<series>'),
    attributedTemplate: self.attributed('<series>'),
    unattributedHealth: self.unattributedOf(self.health),
    healthTemplate: self.health('<matchers>'),
    // The DCGM field of the driver version: the counter file's label row names it, and the
    // series carry it as a label of that name (labels.driverVersion, if you relabel it).
    driverField: profile.driverLabel,
    // Name of the clock-event bitmask field your exporter collects
    // (DCGM_FI_DEV_CLOCKS_EVENT_REASONS in newer counter files).
    throttleReasonsField: profile.throttleReasonsField,
    // Whether GPU series carry the cluster label (relabeling adds it). false where cluster is an
    // external label of one Prometheus per cluster (topology.clusterExternal, or topology
    // sharded by it): the label self-check then looks only at the host label.
    clusterOnSeries:: !$.topology.clusterExternal && !($.topology.mode == 'sharded' && $.topology.shardLabel == $.labels.cluster),
    // dcgm-exporter's per-code XID counts, which see a repeated XID that the last-XID gauge
    // hides: the events of each code within the exporter's window (xidCountField), or since
    // the exporter started (xidTotalField, a counter); null for an exporter without it. The
    // counter file collects the ones set.
    xidCountField:: profile.xidCountField,
    xidTotalField:: profile.xidTotalField,
    // The clock-event counter (label clock_event), read by L3; null where not collected.
    clockEventsTotalField:: profile.clockEventsTotalField,
    // The exporter's DCGM health check (labels health_watch, health_error_code); its failures
    // ticket. null where not collected.
    healthStatusField:: profile.healthStatusField,
    // The driver's recovery action (DCGM field 1523); its alerts follow recoveryActions
    // (hardware/recovery.libsonnet). null where not collected (DCGM before 4, drivers before R570).
    recoveryActionField:: profile.recoveryActionField,
    // The default-collected fields that tell a GPU (or MIG instance) is there, read in turn:
    // a GPU reads as present while it sends any of them, and gone when it sends none. Every
    // GPU sends its temperature but a vGPU guest (NVIDIA vGPU/GRID in a virtual machine,
    // modelName "GRID A100-40C"), which sends no temperature, power, energy, PCIe replay,
    // remapped-row or profiling field; every GPU, guest and MIG instance sends its free
    // framebuffer (in the exporter's default set and in GKE's managed one). A list of one
    // field reads the fleet at half the cost where every GPU sends it.
    healthFields: ['DCGM_FI_DEV_GPU_TEMP', 'DCGM_FI_DEV_FB_FREE'],
    // The first: the field the scenarios send on a healthy GPU.
    healthField:: self.healthFields[0],
    // The series that tell a GPU is there, each GPU's (or instance's) first health field that
    // it sends, with matchers (a selector's inside): the field itself where there is one, else
    // the record of them all (names.health: the dozen rules that read it read one series per
    // GPU, not one per field).
    health(matchers='')::
      local name = if std.length(self.healthFields) == 1 then self.healthFields[0] else names.health;
      name + (if matchers == '' then '' else '{' + matchers + '}'),
    // The health fields in words, for alert texts and runbooks.
    healthText:: std.join(', else ', self.healthFields),
    // Whether the exporter runs with --kubernetes-virtual-gpus: a GPU shared by time-slicing or
    // MPS then has one series per pod (label vgpu, the replica), each a copy of the device's
    // value, except for perProcessFields, where each pod's series holds its own processes'
    // value next to the device's series without pod labels. Every per-GPU rollup then reads
    // one series per GPU or MIG instance (the largest), and namespace rollups weigh each copy
    // by the pod's share.
    virtualGPUs: false,
    perProcessFields: ['DCGM_FI_DEV_GPU_UTIL', 'DCGM_FI_DEV_FB_USED'],
    // The counter file's own DCGM fields that every GPU reports while the file collects them (no
    // NVLink, profiling, event or platform fields, which some GPUs never send, nor the exporter's own
    // counts, which its flags enable): where GPUs report the default fields but none of these,
    // the exporter runs with its default counter set (DCGMExporterStockCounterSet). Derived from extraCounters; the first is the one the
    // promtool scenarios send on every GPU, so it must read 0 as "nothing happened".
    local everyGPUReports(f) =
      local field = $.fields[f];
      field.id != 0 && !field.default && !field.profiling && field.family != 'nvlink'
      && !std.objectHas($.platformFields[self.platform], f)
      && std.member(['gpu', 'mig-repeated'], field.entity) && field.kind != 'last-event',
    counterFileFields: if self.managed != '' then [] else [f for f in self.extraCounters if std.objectHas($.fields, f) && everyGPUReports(f)],
    // The alert that tickets a cluster whose exporters run the default counter set ('' for none);
    // its runbook lists the alerts the default set leaves blind.
    stockCounterSetAlert: if self.counterFileFields == [] then '' else 'DCGMExporterStockCounterSet',
    // Fields your counter file collects beyond the exporter's default set. The default lists
    // what the embedded rules read; lint warns about rules that read a field collected by
    // neither. None where a cloud runs the exporter: it reads no counter file of yours.
    extraCounters: if self.managed != '' then [] else [
      self.throttleReasonsField,
    ] + [
      f
      for f in [self.xidCountField, self.xidTotalField, self.clockEventsTotalField, self.healthStatusField, self.recoveryActionField]
      if f != null
    ] + [
      'DCGM_FI_DEV_ECC_SBE_VOL_TOTAL',
      'DCGM_FI_DEV_ECC_DBE_VOL_TOTAL',
      'DCGM_FI_DEV_RETIRED_PENDING',
      'DCGM_FI_DEV_ROW_REMAP_PENDING',
      'DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL',
      'DCGM_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_TOTAL',
      'DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL',
      'DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL',
      'DCGM_FI_PROF_SM_ACTIVE',
      // Power throttling's evidence: SM clocks against their maximum.
      'DCGM_FI_DEV_MAX_SM_CLOCK',
      // The PCIe link against what the GPU and slot support.
      'DCGM_FI_DEV_PCIE_LINK_WIDTH',
      'DCGM_FI_DEV_PCIE_MAX_LINK_WIDTH',
      'DCGM_FI_DEV_PCIE_LINK_GEN',
      'DCGM_FI_DEV_PCIE_MAX_LINK_GEN',
      // Dashboards: power against the limit, NVLink traffic.
      'DCGM_FI_DEV_POWER_MGMT_LIMIT',
      'DCGM_FI_PROF_NVLINK_TX_BYTES',
      'DCGM_FI_PROF_NVLINK_RX_BYTES',
    ] + std.objectFields($.platformFields[self.platform]),
  },

  kubeStateMetrics: {
    job: 'kube-state-metrics',
    // kube-state-metrics sanitises nvidia.com/gpu to nvidia_com_gpu.
    gpuResource: 'nvidia_com_gpu',
    // MIG devices under the GPU Operator's mixed strategy are resources of their own
    // (nvidia.com/mig-1g.10gb); under single, nvidia.com/gpu counts them. Capacity and
    // requests read both, so they count slots (a whole GPU or a MIG device) under any strategy.
    migResources: 'nvidia_com_mig_.+',
    gpuResources: self.gpuResource + '|' + self.migResources,
  },

  // How Kubernetes hands GPUs to pods: 'device-plugin' (the nvidia.com/gpu extended resource of
  // NVIDIA's device plugin), 'dra' (devices of ResourceClaims, published by NVIDIA's DRA driver:
  // no node has the extended resource) or 'mixed' (node pools of both, as a fleet moves). The
  // capacity, allocation, quota and scheduling rules read what each mode reports.
  kubernetes: {
    gpuAllocation: 'device-plugin',
    // The DRA driver that publishes the GPUs, and their DeviceClass (a ResourceQuota limits
    // <class>.deviceclass.resource.k8s.io/devices).
    draDriver: 'gpu.nvidia.com',
    draDeviceClass: 'gpu.nvidia.com',
    // The kubelets' scrape job: kubelet reports DRA prepare failures; and the label of
    // kubelet's series that names the node (kube-prometheus-stack's kubelet ServiceMonitor
    // adds node).
    kubeletJob: 'kubelet',
    kubeletNodeLabel:: 'node',
    // Derived from gpuAllocation, as the Go model's DevicePlugin and DRA: whether some nodes
    // hand GPUs out through the device plugin, and whether some do through DRA.
    // Neither on a Slurm fleet: its capacity is what Slurm lends (slurm_node_gpus).
    devicePlugin:: $.scheduler == 'kubernetes' && self.gpuAllocation != 'dra',
    dra:: $.scheduler == 'kubernetes' && self.gpuAllocation != 'device-plugin',
    // promtool series of a node's GPUs in capacity, as the mode reports them: the device
    // plugin's capacity (its time-slicing replicas each), on a DRA fleet the GPU devices of
    // the node's ResourceSlice, on a Slurm fleet the GPUs slurmctld counts on the node. steps are [GPUs, minutes] in turn, as t.steps; labels are
    // added to each series.
    capacitySeries(node, steps, labels={})::
      local t = import 'lib/test.libsonnet';
      local ksm(extra) = e.ksm($.kubeStateMetrics.job, labels + extra);
      if $.scheduler == 'slurm' then [
        t.series('slurm_node_gpus', t.steps(steps), labels { job: $.slurm.job, [$.slurm.nodeLabel]: node }),
      ] else if !self.devicePlugin then [
        // Device i is published in the steps that have more than i GPUs.
        t.series(
          'kube_resourceslice_device_info',
          std.join(' ', [(if p[0] > i then '1' else '_') + 'x' + p[1] for p in steps]),
          ksm({ resourceslice: node + '-gpu', driver: $.kubernetes.draDriver, pool_name: node, node_name: node, device_name: 'gpu-' + i }),
        )
        for i in std.range(0, std.foldl(std.max, [p[0] for p in steps], 0) - 1)
      ] else [
        t.series('kube_node_status_capacity', t.steps([[p[0] * $.sharing.replicas, p[1]] for p in steps]), ksm({ node: node, resource: $.kubeStateMetrics.gpuResource, unit: 'integer' })),
      ],
  },
}
