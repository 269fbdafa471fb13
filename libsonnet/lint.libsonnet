// What `gpuobs lint` needs to know beyond the fields: the fleet it must scale to, series
// budgets, the other metrics rules may read, and suppressions.
{
  // The fleet every projection is made for: 100,000 GPUs by default.
  fleet: {
    clusters: 10,
    nodesPerCluster: 1250,
    gpusPerNode: 8,
    // MIG instances per partitioned GPU (projections assume every GPU could be).
    migInstancesPerGPU: 7,
    namespacesPerCluster: 200,
    // Pods holding GPUs on a node: at most one per GPU or MIG instance.
    podsPerNode: 8,
  },

  lint+: {
    // Most series one rule (by the level of its name) or one dashboard query (by the
    // dashboard's level tag, L1..L5) may produce at fleet size.
    budgets: {
      gpu_pod: 800000,
      gpu: 200000,
      node: 20000,
      namespace: 20000,
      cluster: 1000,
      fleet: 100,
      // Rules whose name has no known level.
      other: 200000,
      // Alerts: the series an alert expression yields when everything fires.
      alert: 1000000,
      L1: 100,
      L2: 5000,
      L3: 2000,
      L4: 2000,
      L5: 500,
      dashboard: 5000,
    },
    // Checks to skip everywhere, by name (promql/counter) or area (cardinality).
    disable: [],
    // Your own conventions, checked in rule files gpuobs did not generate (its own output keeps
    // gpuobs' conventions); each empty entry checks nothing. For example:
    //   severities: ['critical', 'warning', 'info', 'none'], annotations: ['summary', 'runbook'],
    //   recordNames: '^[a-z_]*:[a-zA-Z0-9_]+:[a-z0-9_]+$', alertNames: '^[A-Z][A-Za-z0-9]+$'
    policy: {
      severities: [],
      annotations: [],
      recordNames: '',
      alertNames: '',
    },
    // Checks to skip for some files: [{ check: 'naming/alert', path: 'legacy/*.yaml' }].
    ignore: [],
    // Recording rules renamed, former name: name now. A dashboard or rule that still reads a
    // former name (and no rule of the files linted records it) is reported with the new one.
    // gpuobs lists its own renames beside the records (serving/); add your team's.
    renamed+: {},
  },

  // Metrics other than DCGM fields that rules may read, with their type and labels.
  metrics+: {
    // Scraped series carry the cluster label under the catalog's name (relabeling or external
    // labels add it to every target alike).
    local ksm = [$.labels.cluster, 'job', 'instance'],
    // up carries its target's pod (Kubernetes service discovery under a ServiceMonitor).
    up: { type: 'gauge', labels: ksm + $.exporter.targetPodLabels },
    ALERTS: { type: 'gauge', labels: ['alertname', 'alertstate', 'severity', $.labels.team] },
    kube_node_status_allocatable: { type: 'gauge', labels: ksm + ['node', 'resource', 'unit'] },
    kube_node_status_capacity: { type: 'gauge', labels: ksm + ['node', 'resource', 'unit'] },
    kube_node_spec_unschedulable: { type: 'gauge', labels: ksm + ['node'] },
    kube_node_info: { type: 'gauge', labels: ksm + ['node', 'kernel_version', 'os_image', 'container_runtime_version', 'kubelet_version', 'kubeproxy_version', 'provider_id', 'internal_ip', 'system_uuid'] },
    kube_pod_container_resource_requests: { type: 'gauge', labels: ksm + ['namespace', 'pod', 'container', 'node', 'resource', 'unit'] },
    kube_pod_container_resource_limits: { type: 'gauge', labels: ksm + ['namespace', 'pod', 'container', 'node', 'resource', 'unit'] },
    kube_pod_status_phase: { type: 'gauge', labels: ksm + ['namespace', 'pod', 'phase', 'uid'] },
    kube_pod_owner: { type: 'gauge', labels: ksm + ['namespace', 'pod', 'owner_kind', 'owner_name', 'owner_is_controller', 'uid'] },
  } + (if !$.kubernetes.dra then {} else {
         local ksm = [$.labels.cluster, 'job', 'instance'],
         // kube-state-metrics' DRA series: the devices each ResourceSlice publishes, the devices
         // allocated to each claim, whether a claim is allocated, and when it was created.
         kube_resourceslice_device_info: { type: 'gauge', labels: ksm + ['resourceslice', 'driver', 'pool_name', 'node_name', 'device_name'] },
         kube_resourceclaim_allocation_device_info: { type: 'gauge', labels: ksm + ['resourceclaim', 'namespace', 'request', 'driver', 'pool', 'device'] },
         kube_resourceclaim_status_allocated: { type: 'gauge', labels: ksm + ['resourceclaim', 'namespace'] },
         kube_resourceclaim_created: { type: 'gauge', labels: ksm + ['resourceclaim', 'namespace'] },
         // kubelet's: how long preparing or unpreparing a pod's claims took, by outcome (the
         // count of the failed ones is the failures).
         dra_operations_duration_seconds_count: { type: 'counter', labels: [$.labels.cluster, 'job', 'instance', $.kubernetes.kubeletNodeLabel, 'operation_name', 'is_error'] },
       }),
}
