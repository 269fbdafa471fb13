// Scheduling and the monitoring itself: GPU pods that cannot be scheduled, namespace GPU
// quotas, GPUs the device plugin stopped offering, GPU nodes without an exporter, GPUs whose
// profiling fields vanished, and the driver compatibility gate.
local e = import 'lib/expr.libsonnet';
local rb = import 'lib/runbook.libsonnet';
local t = import 'lib/test.libsonnet';
{
  thresholds+: {
    // Share of a namespace's GPU quota in use above which its team gets a ticket.
    gpuQuotaRatio: 0.9,
  },

  windows+: {
    // How long a GPU pod may stay unschedulable before it is a ticket: the cluster autoscaler
    // usually brings a node within minutes.
    unschedulable: '15m',
  },

  kubeStateMetrics+: {
    // The ResourceQuota resource that caps a namespace's GPU requests (kube_resourcequota keeps
    // the resource name as Kubernetes spells it), and on DRA nodes the one that caps the
    // devices of the GPUs' DeviceClass.
    gpuQuotaResource:: 'requests.nvidia.com/gpu',
    draQuotaResource:: $.kubernetes.draDeviceClass + '.deviceclass.resource.k8s.io/devices',
    gpuQuotaResources:: (if $.kubernetes.devicePlugin then [self.gpuQuotaResource] else [])
                        + (if $.kubernetes.dra then [self.draQuotaResource] else []),
  },

  // The driver compatibility gate: the driver branches (major versions) validated for each
  // SKU, by modelName. NVIDIA's data-center branches that support each GPU (production and
  // long-term branches to R580, R590 and R595) as a starting point; put your own validated
  // matrix here. GPUs of an SKU the table lacks are not gated. A branch newer than every branch
  // listed for its SKU is not a misconfiguration but news: it raises an info alert
  // (GPUDriverNewerThanGate), not the gate's ticket.
  compatibility:: {
    driverBranches: {
      'NVIDIA A100-SXM4-40GB': ['470', '535', '550', '570', '580', '590', '595'],
      'NVIDIA A100-SXM4-80GB': ['470', '535', '550', '570', '580', '590', '595'],
      'NVIDIA H100 80GB HBM3': ['535', '550', '570', '580', '590', '595'],
      'NVIDIA H200': ['550', '570', '580', '590', '595'],
      'NVIDIA L4': ['535', '550', '570', '580', '590', '595'],
      'NVIDIA L40S': ['535', '550', '570', '580', '590', '595'],
    },
  },

  metrics+: {
    local ksm = [$.labels.cluster, 'job', 'instance'],
    local scheduling = { section: 'scheduling' },
    kube_pod_status_unschedulable: scheduling { type: 'gauge', labels: ksm + ['namespace', 'pod', 'uid'] },
    kube_pod_created: scheduling { type: 'gauge', labels: ksm + ['namespace', 'pod', 'uid'] },
    kube_resourcequota: scheduling { type: 'gauge', labels: ksm + ['namespace', 'resourcequota', 'resource', 'type'] },
  },

  local l = $.labels,
  local th = $.thresholds,
  local w = $.windows,
  local ksmJob = $.kubeStateMetrics.job,
  local gpuResources = $.kubeStateMetrics.gpuResources,
  local h = $.exporter.healthField,
  local pod = [l.cluster, 'namespace', 'pod'],
  local q = rb.query,
  local step = rb.step,
  local is = rb.is,
  local asHost(expr) = e.asHost(l, expr),
  // GPUs each pod requests, from kube-state-metrics.
  local podGPUs = e.fill(|||
    sum by ($(pod)) (kube_pod_container_resource_requests{job="$(job)", resource=~"$(resources)"})
  |||, { pod: std.join(', ', pod), job: ksmJob, resources: gpuResources }),
  local unschedulablePods = e.fill(|||
    max by ($(pod)) (kube_pod_status_unschedulable{job="$(job)"}) == 1
  |||, { pod: std.join(', ', pod), job: ksmJob }),
  local unschedulableGPUPods = e.fill(|||
    ($(podGPUs) > 0) and on ($(pod)) ($(unschedulable))
  |||, { podGPUs: podGPUs, pod: std.join(', ', pod), unschedulable: unschedulablePods }),
  local gate = 'gpu:dcgm_driver_outside_gate:group',
  local newer = 'gpu:dcgm_driver_newer_than_gate:group',
  // The branches of an SKU's gate, and the branches newer than all of them.
  local branches(sku) = std.join('|', $.compatibility.driverBranches[sku]),
  local newerBranches(sku) = e.above(std.foldl(std.max, [std.parseInt(b) for b in $.compatibility.driverBranches[sku]], 0)),
  // DRA: on nodes that hand GPUs out through ResourceClaims, a pod waits for its claim's
  // devices, and kubelet prepares them before the pod starts.
  local k = $.kubernetes,
  local dra = k.dra,
  local unallocatedClaims = 'namespace:kube_resourceclaims_unallocated:count',
  local claimUnallocated = e.fill(|||
    max by ($(claim)) (kube_resourceclaim_status_allocated{job="$(job)"}) == 0
  |||, { claim: std.join(', ', [l.cluster, 'namespace', 'resourceclaim']), job: ksmJob }),
  local claim(metric, name, values, labels={}) = t.series(metric, values, e.ksm(ksmJob, { namespace: 'research', resourceclaim: name } + labels)),
  // The nodes that have GPUs, with how many: the device plugin's capacity, or the GPU
  // devices a DRA node's ResourceSlices publish.
  local gpuNodes = std.join(' or ', (if !k.devicePlugin then [] else [
                                       e.fill(|||
                                         kube_node_status_capacity{job="$(job)", resource=~"$(resources)"} > 0
                                       |||, { job: ksmJob, resources: gpuResources }),
                                     ]) + (if !dra then [] else [
                                             e.fill(|||
                                               count by ($(cluster), $(node)) (label_replace(kube_resourceslice_device_info{job="$(job)", driver="$(driver)"}, "$(node)", "$1", "node_name", "(.+)"))
                                             |||, { cluster: l.cluster, node: l.node, job: ksmJob, driver: k.draDriver }),
                                           ])),

  records+: {
    // GPU pods waiting for a node, by namespace (L2's scheduling panels).
    'namespace:kube_gpu_pods_unschedulable:count': {
      section: 'scheduling',
      family: 'capacity',
      expr: e.fill(|||
        count by ($(namespace)) ($(unschedulable))
      |||, { namespace: std.join(', ', [l.cluster, 'namespace']), unschedulable: unschedulableGPUPods }),
      tests: [t.recordCase('two GPU pods and a CPU pod unschedulable', [
        t.series('kube_pod_status_unschedulable', '1x60', e.ksm(ksmJob, { [l.cluster]: 'prod', namespace: 'research', pod: p, uid: 'uid-' + p }))
        for p in ['train-0', 'train-1', 'etl-0']
      ] + [
        t.series('kube_pod_container_resource_requests', '2x60', e.ksm(ksmJob, { [l.cluster]: 'prod', namespace: 'research', pod: p, container: 'main', resource: $.kubeStateMetrics.gpuResource, unit: 'integer' }))
        for p in ['train-0', 'train-1']
      ], [t.sample({ [l.cluster]: 'prod', namespace: 'research' }, 2)], 'namespace:kube_gpu_pods_unschedulable:count')],
    },
    // The longest wait of a GPU pod for a node, by namespace.
    'namespace:kube_gpu_pod_scheduling_wait_seconds:max': {
      section: 'scheduling',
      family: 'capacity',
      expr: e.fill(|||
        max by ($(namespace)) ((time() - max by ($(pod)) (kube_pod_created{job="$(job)"})) and on ($(pod)) ($(unschedulable)))
      |||, { namespace: std.join(', ', [l.cluster, 'namespace']), pod: std.join(', ', pod), job: ksmJob, unschedulable: unschedulableGPUPods }),
      tests: [t.recordCase('a GPU pod created 20 minutes before the test ends', [
        t.series('kube_pod_status_unschedulable', '1x60', e.ksm(ksmJob, { [l.cluster]: 'prod', namespace: 'research', pod: 'train-0', uid: 'uid-train-0' })),
        t.series('kube_pod_created', '2400x60', e.ksm(ksmJob, { [l.cluster]: 'prod', namespace: 'research', pod: 'train-0', uid: 'uid-train-0' })),
        t.series('kube_pod_container_resource_requests', '1x60', e.ksm(ksmJob, { [l.cluster]: 'prod', namespace: 'research', pod: 'train-0', container: 'main', resource: $.kubeStateMetrics.gpuResource, unit: 'integer' })),
      ], [t.sample({ [l.cluster]: 'prod', namespace: 'research' }, e.seconds($.tests.evalTime) - 2400)], 'namespace:kube_gpu_pod_scheduling_wait_seconds:max')],
    },
  } + (if !dra then {} else {
         // ResourceClaims no device has been allocated to, by namespace (L2's scheduling row):
         // on DRA nodes, the pods that wait for GPUs.
         [unallocatedClaims]: {
           section: 'scheduling',
           family: 'capacity',
           expr: e.fill(|||
             count by ($(namespace)) ($(unallocated))
           |||, { namespace: std.join(', ', [l.cluster, 'namespace']), unallocated: claimUnallocated }),
           tests: [t.recordCase('two claims waiting, one allocated', [
             claim('kube_resourceclaim_status_allocated', c.name, c.allocated + 'x60', { [l.cluster]: 'prod' })
             for c in [{ name: 'train-0-gpu', allocated: 0 }, { name: 'train-1-gpu', allocated: 0 }, { name: 'infer-0-gpu', allocated: 1 }]
           ], [t.sample({ [l.cluster]: 'prod', namespace: 'research' }, 2)], unallocatedClaims)],
         },
       }) + {
    // GPUs whose driver is outside the branches validated for their SKU, and not newer than
    // all of them: one rule per SKU, told apart by modelName, as the price table. A series
    // without the driver label is the label self-check's (DCGMExporterLabelMismatch), not the
    // gate's.
    [gate + ':' + sku]: {
      record: gate,
      labels: { [l.modelName]: sku },
      family: 'hygiene',
      expr: e.fill(|||
        group by ($(gpu), $(driver)) ($(health))
      |||, { gpu: std.join(', ', $.identity.gpu), driver: l.driverVersion, health: $.exporter.health(e.fill(|||
        $(model)="$(sku)", $(driver)!="", $(driver)!~"($(branches))[.].+", $(driver)!~"($(newer))[.].+"
      |||, { driver: l.driverVersion, model: l.modelName, sku: sku, branches: branches(sku), newer: newerBranches(sku) })) }),
    }
    for sku in std.objectFields($.compatibility.driverBranches)
  } + {
    // GPUs on a branch newer than every branch the gate lists for their SKU: a release the
    // gate's table has not caught up with.
    [newer + ':' + sku]: {
      record: newer,
      labels: { [l.modelName]: sku },
      family: 'hygiene',
      expr: e.fill(|||
        group by ($(gpu), $(driver)) ($(health))
      |||, { gpu: std.join(', ', $.identity.gpu), driver: l.driverVersion, health: $.exporter.health(e.fill(|||
        $(model)="$(sku)", $(driver)=~"($(newer))[.].+"
      |||, { driver: l.driverVersion, model: l.modelName, sku: sku, newer: newerBranches(sku) })) }),
    }
    for sku in std.objectFields($.compatibility.driverBranches)
  },

  alerts+: {
    local mlp = { team: $.teams['ml-platform'] },

    GPUPodUnschedulable: mlp {
      section: 'scheduling',
      family: 'capacity',
      severity: 'warning',
      expr: unschedulableGPUPods,
      'for': w.unschedulable,
      identity: pod,
      summary: 'A pod that requests GPUs cannot be scheduled.',
      description: 'Pod {{ $labels.namespace }}/{{ $labels.pod }} in cluster {{ $labels.' + l.cluster + ' }} requests {{ $value }} GPUs and has found no node for ' + w.unschedulable + ': no free GPUs of the kind it asks for, a quota, or a node selector nothing matches.',
      tests:
        local k(metric, values, p, extra={}) = t.series(metric, values, e.ksm(ksmJob, { namespace: 'research', pod: p } + extra));
        local requests(p, gpus) = k('kube_pod_container_resource_requests', gpus + 'x60', p, { container: 'main', resource: $.kubeStateMetrics.gpuResource, unit: 'integer' });
        local waiting(p, values) = k('kube_pod_status_unschedulable', values, p, { uid: 'uid-' + p });
        [
          t.case('no node for 40 minutes', true, [], extra=[waiting('train-0', '0x20 1x40'), requests('train-0', 4)], target={ namespace: 'research', pod: 'train-0' }, value=4),
          t.case('waits 5 minutes for the autoscaler', false, [], extra=[waiting('train-0', '0x50 1x5 0x5'), requests('train-0', 4)]),
          t.case('unschedulable for 10 minutes so far', false, [], extra=[waiting('train-0', '0x50 1x10'), requests('train-0', 4)]),
          t.case('an unschedulable pod without GPUs', false, [], extra=[waiting('etl-0', '1x60')]),
        ],
      runbook: {
        meaning: 'A pod that requests GPUs has stayed unschedulable for ' + w.unschedulable + ': the scheduler finds no node that fits it.',
        impact: 'The workload does not start: training waits, inference cannot scale out.',
        queries: [
          q('Why: the scheduler events of the pod', 'kube_pod_status_unschedulable' + '{' + is(l.cluster) + ', namespace="$namespace", pod="$pod"}'),
          q('GPUs it requests', 'sum(kube_pod_container_resource_requests{' + is(l.cluster) + ', namespace="$namespace", pod="$pod", resource=~"' + gpuResources + '"})'),
          q('Free GPUs by node', 'sum by (node) (kube_node_status_allocatable{' + is(l.cluster) + ', resource=~"' + gpuResources + '"}) - sum by (node) (kube_pod_container_resource_requests{' + is(l.cluster) + ', resource=~"' + gpuResources + '"})'),
          q('GPU pods waiting in the cluster', 'namespace:kube_gpu_pods_unschedulable:count{' + is(l.cluster) + '}'),
        ],
        diagnosis: [
          step('Does `kubectl describe pod` name a quota ("exceeded quota")?', 'The namespace is at its GPU quota (see GPUNamespaceQuotaNearlyFull): raise it or free GPUs.'),
          step('Does it say "Insufficient nvidia.com/gpu" while the cluster has free GPUs?', 'The free GPUs are spread over nodes (fragmentation on L2), or of another kind (MIG profile, SKU): pack or resize the request.'),
          step('Does it name a node selector, affinity or taint nothing satisfies?', 'Fix the pod spec, or add the node pool it asks for.', 'The cluster is full: the autoscaler should add a node; check its logs and limits.'),
        ],
        mitigation: ['Free idle GPUs (GPUAllocatedIdle) or lower the request.', 'Raise the node pool limit of the autoscaler.', 'Move the job to a cluster with free GPUs.'],
        escalation: 'ML platform team; the owning team of the namespace for the pod spec.',
        dashboards: ['L2'],
      },
    },

    GPUNamespaceQuotaNearlyFull: mlp {
      section: 'scheduling',
      family: 'capacity',
      severity: 'warning',
      // Each resource apart: in a mixed fleet one quota may cap both the device plugin's GPUs
      // and the DRA devices.
      local resources = $.kubeStateMetrics.gpuQuotaResources,
      local quota(type) = e.fill(|||
        max by ($(quota)) (kube_resourcequota{job="$(job)", resource$(match)"$(resources)", type="$(type)"})
      |||, { quota: std.join(', ', pod[:2] + ['resourcequota', 'resource']), job: ksmJob, match: if std.length(resources) == 1 then '=' else '=~', resources: std.join('|', resources), type: type }),
      // A hard limit of 0 forbids GPUs on purpose: nothing to divide.
      expr: e.fill(|||
        $(used) / ($(hard) > 0) > $(ratio)
      |||, { used: quota('used'), hard: quota('hard'), ratio: std.toString(th.gpuQuotaRatio) }),
      'for': '30m',
      identity: pod[:2] + ['resourcequota', 'resource'],
      summary: 'A namespace has almost used up its GPU quota.',
      description: 'Namespace {{ $labels.namespace }} in cluster {{ $labels.' + l.cluster + ' }} uses {{ $value | humanizePercentage }} of the GPUs its quota {{ $labels.resourcequota }} allows (threshold ' + e.percent(th.gpuQuotaRatio) + ' %): its next GPU pods will be rejected.',
      tests:
        local resource = $.kubeStateMetrics.gpuQuotaResources[0];
        local quota(type, values, of=resource) = t.series('kube_resourcequota', values, e.ksm(ksmJob, { namespace: 'research', resourcequota: 'gpu-quota', resource: of, type: type }));
        [
          t.case('16 of 16 GPUs used', true, [], extra=[quota('hard', '16x60'), quota('used', '16x60')], target={ namespace: 'research', resourcequota: 'gpu-quota', resource: resource }, value=1),
          t.case('CPU quota full, GPU quota not', false, [], extra=[quota('hard', '16x60'), quota('used', '8x60'), quota('hard', '64x60', 'requests.cpu'), quota('used', '64x60', 'requests.cpu')]),
          t.case('8 of 16 GPUs used', false, [], extra=[quota('hard', '16x60'), quota('used', '8x60')]),
          t.case('GPUs forbidden (quota 0)', false, [], extra=[quota('hard', '0x60'), quota('used', '0x60')]),
        ],
      runbook: {
        meaning: 'Pods of the namespace request more than ' + e.percent(th.gpuQuotaRatio) + ' % of the GPUs its ResourceQuota allows.',
        impact: 'The next GPU pods of the namespace are rejected at admission (they never reach the scheduler).',
        queries: [
          q('Quota use', 'kube_resourcequota{' + is(l.cluster) + ', namespace="$namespace", resource="$resource"}'),
          q('GPU pods of the namespace', 'sum by (pod) (kube_pod_container_resource_requests{' + is(l.cluster) + ', namespace="$namespace", resource=~"' + gpuResources + '"})'),
          q('Idle allocated GPUs of the namespace', 'ALERTS{alertname="GPUAllocatedIdle", ' + is(l.cluster) + ', namespace="$namespace", alertstate="firing"}'),
        ],
        diagnosis: [
          step('Are some of its GPUs allocated but idle (GPUAllocatedIdle)?', 'Reclaim them first.', 'The team needs more: agree a higher quota with capacity planning.'),
        ],
        mitigation: ['Free idle allocations.', 'Raise the quota if the cluster has capacity (`kubectl edit resourcequota $resourcequota -n $namespace`).'],
        escalation: 'ML platform team; the owning team of the namespace.',
        dashboards: ['L2'],
      },
    },

  } + (if !dra then {} else {
         GPUResourceClaimUnallocated: {
           section: 'scheduling',
           team: $.teams['ml-platform'],
           family: 'capacity',
           severity: 'warning',
           expr: claimUnallocated,
           'for': w.unschedulable,
           identity: [l.cluster, 'namespace', 'resourceclaim'],
           summary: 'A ResourceClaim has found no device for its pods.',
           description: 'ResourceClaim {{ $labels.namespace }}/{{ $labels.resourceclaim }} in cluster {{ $labels.' + l.cluster + ' }} has had no device allocated for ' + w.unschedulable + ': no node publishes a free device that satisfies it, so the pods that use it cannot be scheduled.',
           tests: [
             t.case('no device for an hour', true, [], extra=[claim('kube_resourceclaim_status_allocated', 'train-0-gpu', '0x60')], target={ namespace: 'research', resourceclaim: 'train-0-gpu' }, value=0),
             t.case('allocated after 5 minutes', false, [], extra=[claim('kube_resourceclaim_status_allocated', 'train-0-gpu', '0x5 1x55')]),
             t.case('waiting for 10 minutes so far', false, [], extra=[claim('kube_resourceclaim_status_allocated', 'train-0-gpu', '1x50 0x10')]),
           ],
           runbook: {
             meaning: 'A ResourceClaim has stayed unallocated for ' + w.unschedulable + ': the scheduler finds no node whose ResourceSlices publish a free device that its requests and selectors accept. Its pods stay Pending. (kube-state-metrics does not say which DeviceClass a claim asks for: a claim for another kind of device alerts too.)',
             impact: 'The workload does not start: training waits, inference cannot scale out.',
             queries: [
               q('Claims of the namespace and whether they are allocated', 'kube_resourceclaim_status_allocated{' + is(l.cluster) + ', namespace="$namespace"}'),
               q('GPU devices the nodes publish', 'count by (node_name) (kube_resourceslice_device_info{' + is(l.cluster) + ', driver="' + k.draDriver + '"})'),
               q('GPU devices allocated, by node', 'count by (pool) (kube_resourceclaim_allocation_device_info{' + is(l.cluster) + ', driver="' + k.draDriver + '"})'),
             ],
             diagnosis: [
               step("Does `kubectl describe resourceclaim $resourceclaim -n $namespace` (or its pod's events) name a device class or selector nothing satisfies?", 'Fix the claim or its template (device class, CEL selector, MIG profile).'),
               step('Do the nodes publish free GPU devices (L2, DRA claims)?', 'The free devices are of another kind (SKU, MIG profile) or on nodes the pod may not use: pack or resize the request.', 'The cluster is full: the autoscaler should add a node; check its logs and limits.'),
             ],
             mitigation: ['Free idle GPUs (GPUAllocatedIdle) or lower the request.', 'Fix the claim template of the workload.', 'Raise the node pool limit of the autoscaler.'],
             escalation: 'ML platform team; the owning team of the namespace for the claim.',
             dashboards: ['L2'],
           },
         },

         GPUDRAPrepareFailing: {
           section: 'scheduling',
           team: $.teams.infra,
           family: 'capacity',
           severity: 'warning',
           local failed = e.fill(|||
             increase(dra_operations_duration_seconds_count{job="$(job)", operation_name="PrepareResources", is_error="true"}[$(window)])
           |||, { job: k.kubeletJob, window: w.unschedulable }),
           expr: e.fill(|||
             sum by ($(cluster), $(host)) (label_replace($(failed), "$(host)", "$1", "$(nodeLabel)", "(.+)")) > 0
           |||, { cluster: l.cluster, host: l.host, failed: failed, nodeLabel: k.kubeletNodeLabel }),
           'for': '5m',
           identity: [l.cluster, l.host],
           summary: "A node's kubelet fails to prepare the DRA devices of its pods.",
           description: 'The kubelet of node {{ $labels.' + l.host + ' }} in cluster {{ $labels.' + l.cluster + ' }} failed {{ $value | printf "%.0f" }} times in the last ' + w.unschedulable + " to prepare the devices of a pod's claims: the pods stay in ContainerCreating.",
           tests:
             local prepared(values, failed) = t.series('dra_operations_duration_seconds_count', values, { job: k.kubeletJob, instance: '10.0.0.7:10250', [k.kubeletNodeLabel]: t.scenarioHost, operation_name: 'PrepareResources', is_error: failed });
             [
               t.case('every prepare fails', true, [], extra=[prepared('0+1x60', 'true'), prepared('5x60', 'false')], target={ [l.host]: t.scenarioHost }, value=e.seconds(w.unschedulable) / 60),
               t.case('prepares succeed', false, [], extra=[prepared('0x60', 'true'), prepared('0+2x60', 'false')]),
               t.case('one failure, half an hour ago', false, [], extra=[prepared('0x30 1x30', 'true'), prepared('0+2x60', 'false')]),
             ],
           runbook: {
             meaning: "The node's kubelet asked the DRA driver to prepare the devices of a pod's ResourceClaims (NodePrepareResources) and it failed, " + w.unschedulable + ' or less ago: the driver is down, cannot reach the GPU, or the claim asks for a configuration it cannot make (a MIG layout, a sharing mode).',
             impact: 'Pods scheduled on the node stay in ContainerCreating: their GPUs are allocated and idle.',
             queries: [
               q('Failed prepares of the node', 'increase(dra_operations_duration_seconds_count{' + is(l.cluster) + ', ' + k.kubeletNodeLabel + '="$' + l.host + '", operation_name="PrepareResources", is_error="true"}[1h])'),
               q('Hardware alerts on the node', 'ALERTS{alertstate="firing", ' + is(l.cluster) + ', ' + is(l.host) + ', ' + l.team + '="' + $.teams.infra + '"}'),
             ],
             diagnosis: [
               step('Do hardware alerts (XID, recovery action, fallen off the bus) fire on the node?', 'The driver cannot prepare a failed GPU: follow those runbooks.'),
               step("Does the DRA driver's kubelet plugin run on the node (`kubectl get pods -n nvidia-dra-driver-gpu -o wide --field-selector spec.nodeName=$" + l.host + '`)?', "Read its logs for the claim's error: a MIG layout or sharing configuration it could not apply.", 'Restart it (the DaemonSet), or fix its scheduling on the node.'),
             ],
             mitigation: ['Restart the DRA kubelet plugin of the node.', 'Cordon the node while the driver fails: `kubectl cordon $' + l.host + '`.'],
             escalation: 'Infrastructure on-call.',
             dashboards: ['L2'],
           },
         },
       }) + {
    GPUDevicePluginDegraded: {
      section: 'scheduling',
      team: $.teams.infra,
      family: 'capacity',
      severity: 'warning',
      local perNode(metric) = e.fill(|||
        sum by ($(cluster), node) ($(metric){job="$(job)", resource=~"$(resources)"})
      |||, { cluster: l.cluster, metric: metric, job: ksmJob, resources: gpuResources }),
      local withdrawn = e.fill(|||
        ($(capacity) - $(allocatable)) > 0
      |||, { capacity: perNode('kube_node_status_capacity'), allocatable: perNode('kube_node_status_allocatable') }),
      expr: e.fill(|||
        max by ($(cluster), $(host)) ($(withdrawn))
      |||, { cluster: l.cluster, host: l.host, withdrawn: asHost(withdrawn) }),
      'for': '15m',
      identity: [l.cluster, l.host],
      summary: 'The device plugin stopped offering some GPUs of a node.',
      description: 'Node {{ $labels.' + l.host + ' }} in cluster {{ $labels.' + l.cluster + ' }} has {{ $value }} GPUs in capacity that the NVIDIA device plugin no longer offers to pods (it marked them unhealthy, or lost them).',
      tests:
        local node(metric, values) = t.series(metric, values, e.ksm(ksmJob, { node: t.scenarioHost, resource: $.kubeStateMetrics.gpuResource, unit: 'integer' }));
        // The device plugin advertises its time-slicing replicas of each GPU.
        local r = $.sharing.replicas;
        [
          t.case('one of 8 GPUs withdrawn', true, [], gpus=8, extra=[node('kube_node_status_capacity', (8 * r) + 'x60'), node('kube_node_status_allocatable', (8 * r) + 'x20 ' + (7 * r) + 'x40')], target={ [l.host]: t.scenarioHost }, value=r),
          t.case('every GPU offered', false, [], gpus=8, extra=[node('kube_node_status_capacity', (8 * r) + 'x60'), node('kube_node_status_allocatable', (8 * r) + 'x60')]),
          t.case('withdrawn 10 minutes ago (a plugin restart takes minutes)', false, [], gpus=8, extra=[node('kube_node_status_capacity', (8 * r) + 'x60'), node('kube_node_status_allocatable', (8 * r) + 'x50 ' + (7 * r) + 'x10')]),
        ],
      runbook: {
        meaning: "Kubernetes lists more GPUs in the node's capacity than the device plugin offers as allocatable: the plugin marked some unhealthy (it does on XIDs that are not the application's, such as " + std.join(', ', [std.toString(x) for x in $.xid.fatal + $.xid.fellOffBus]) + ') or lost track of them.',
        impact: 'Fewer GPUs to schedule on; jobs sized for the whole node cannot land there.',
        queries: [
          q('Capacity and allocatable GPUs of the node', 'kube_node_status_capacity{' + is(l.cluster) + ', node="$' + l.host + '", resource=~"' + gpuResources + '"} or kube_node_status_allocatable{' + is(l.cluster) + ', node="$' + l.host + '", resource=~"' + gpuResources + '"}'),
          q('Hardware alerts on the node', 'ALERTS{alertstate="firing", ' + is(l.cluster) + ', ' + is(l.host) + ', ' + l.team + '="' + $.teams.infra + '"}'),
        ],
        diagnosis: [
          step('Do hardware alerts (XID, ECC, fallen off the bus) fire on the node?', 'The plugin withdrew the failed GPUs on purpose: follow those runbooks.'),
          step("Do the device plugin's logs (`kubectl logs -n gpu-operator -l app=nvidia-device-plugin-daemonset`) show health-check failures?", 'Reset the GPUs it names, or drain the node for repair.', 'Restart the device plugin pod of the node.'),
        ],
        mitigation: ['Repair or reset the withdrawn GPUs.', 'Restart the device plugin on the node.'],
        escalation: 'Infrastructure on-call.',
        dashboards: ['L2', 'L3'],
      },
    },

    DCGMExporterMissingOnNode: {
      team: $.teams.infra,
      family: 'exporter',
      severity: 'warning',
      local exporterHost = 'instance:dcgm_exporter_host:group',
      expr: e.fill(|||
        max by ($(node)) ($(gpuNodes)) unless on ($(node)) group by ($(node)) (last_over_time($(exporterHost)[$(window)]))
      |||, { node: std.join(', ', [l.cluster, l.host]), gpuNodes: asHost(gpuNodes), exporterHost: exporterHost, window: w.missing }),
      'for': '15m',
      identity: [l.cluster, l.host],
      summary: 'A GPU node has no dcgm-exporter: its GPUs are not monitored at all.',
      description: 'Node {{ $labels.' + l.host + ' }} in cluster {{ $labels.' + l.cluster + ' }} lists {{ $value }} GPUs (time-slicing replicas included) in its capacity' + (if dra then ', or publishes as many GPU devices through DRA,' else '') + ' but no dcgm-exporter has reported from it in the last ' + w.missing + ': no GPU alert can fire for it.',
      tests:
        local capacity(node, gpus) = k.capacitySeries(node, [[gpus, 60]]);
        // A node's GPUs that no exporter reports are unavailable capacity: the availability SLO
        // burns too (7 of the cluster's 8 GPUs; the scenario's one GPU reports from another host).
        local availability = [t.also('SLOGPUAvailability' + a, 7 / 8, target={ slo: 'GPUAvailability' }) for a in ['FastBurn', 'SlowBurn']];
        [
          t.case('a new GPU node without an exporter', true, [], extra=capacity('gpu-node-5', 8), target={ [l.host]: 'gpu-node-5' }, value=8 * $.sharing.replicas, alsoFires=availability),
          t.case('a node whose exporter reports', false, [], gpus=8, extra=capacity(t.scenarioHost, 8)),
        ],
      runbook: {
        meaning: "Kubernetes lists GPUs on the node, but no dcgm-exporter target has reported the node's GPUs for " + w.missing + ': the exporter DaemonSet does not run there (node selector, taint, failing pod) or Prometheus does not scrape it.',
        impact: 'Every GPU alert, cost and utilization number is blind to this node.',
        queries: [
          q('GPU nodes without an exporter', 'kube_node_status_capacity{' + is(l.cluster) + ', resource=~"' + gpuResources + '"} > 0'),
          q('Exporter targets of the cluster', 'up{' + is(l.cluster) + ', job="' + $.exporter.job + '"}'),
        ],
        diagnosis: [
          step('Is an exporter pod on the node (`kubectl get pods -n gpu-operator -o wide --field-selector spec.nodeName=$' + l.host + '`)?', 'Check that Prometheus scrapes it: the ServiceMonitor selects it, and its target is up.', "The DaemonSet does not schedule there: compare the node's labels and taints with its node selector and tolerations (the GPU Operator labels GPU nodes nvidia.com/gpu.present=true)."),
        ],
        mitigation: ['Fix the DaemonSet selector or tolerations, or the node labels.', 'Fix the scrape configuration.'],
        escalation: 'Infrastructure on-call.',
        dashboards: ['L2'],
      },
    },

    DCGMProfilingMetricsMissing: {
      team: $.teams.infra,
      family: 'exporter',
      severity: 'warning',
      local prof = 'DCGM_FI_PROF_GR_ENGINE_ACTIVE',
      // The node's GPUs report device fields, none of them profiling, while GPUs of the same
      // SKU elsewhere in the cluster do: the SKU supports profiling, this node lost it.
      expr: e.fill(|||
        count by ($(cluster), $(host), $(model)) (group by ($(gpu)) ($(health))) unless on ($(cluster), $(host)) group by ($(cluster), $(host)) ($(prof)) and on ($(cluster), $(model)) group by ($(cluster), $(model)) ($(prof))
      |||, { cluster: l.cluster, host: l.host, model: l.modelName, gpu: std.join(', ', $.identity.gpu), health: $.exporter.health(), prof: prof }),
      'for': '15m',
      identity: [l.cluster, l.host, l.modelName],
      summary: 'GPUs report their device fields but no profiling fields.',
      description: '{{ $value }} {{ $labels.' + l.modelName + ' }} GPUs on {{ $labels.' + l.host + ' }} in cluster {{ $labels.' + l.cluster + ' }} report device fields but no profiling (DCP) fields, which other GPUs of that SKU in the cluster report: idle, straggler and cost rules are blind to them.',
      tests:
        local other = { [l.host]: 'other-node', [l.gpu]: '0', [l.uuid]: 'GPU-other', [l.modelName]: 'NVIDIA H100 80GB HBM3', [l.driverVersion]: '550.90.07', job: $.exporter.job, instance: 'other-node:9400' };
        [
          t.case('profiling gone on one node of two', true, [], gpus=2, extra=[t.series(h, '65x60', other), t.series(prof, '0.5x60', other)], value=2),
          t.case('profiling reported', false, [t.series(prof, '0.5x60')], gpus=2, extra=[t.series(h, '65x60', other), t.series(prof, '0.5x60', other)]),
          t.case('no GPU of the SKU reports profiling (not supported, or not collected)', false, [], gpus=2),
        ],
      runbook: {
        meaning: 'The GPUs of the node report device fields (temperature, power) but no DCGM profiling fields, while other GPUs of the same SKU in the cluster do.',
        impact: 'SM, tensor and engine activity are missing for these GPUs: GPUAllocatedIdle, GPUTrainingStraggler, "used" GPU-hours and the SM panels are blind to them.',
        notes: ['DCGM profiling is exclusive on a host: a profiler (Nsight Systems or Compute, DCGM diagnostics, a second hostengine) that takes the profiling module makes the exporter lose its profiling fields until it stops.'],
        queries: [
          q('Profiling fields of the node', 'DCGM_FI_PROF_GR_ENGINE_ACTIVE{' + is(l.cluster) + ', ' + is(l.host) + '}'),
          q('Nodes of the cluster without profiling', 'group by (' + l.host + ') (' + $.exporter.health(is(l.cluster)) + ') unless on (' + l.host + ') group by (' + l.host + ') (DCGM_FI_PROF_GR_ENGINE_ACTIVE{' + is(l.cluster) + '})'),
        ],
        diagnosis: [
          step('Is a profiler running on the node (`nvidia-smi` lists ncu or nsys, or a dcgmi diag is running)?', 'Wait for it to finish, or ask its owner; the fields come back when it releases the profiling module.'),
          step("Does the exporter's log show profiling errors (`kubectl logs` of its pod: \"DCP metrics not enabled\" or \"Profiling module\")?", 'Restart the exporter pod of the node.', "Compare the node's exporter counter file with the others: it may not collect DCGM_FI_PROF_*."),
        ],
        mitigation: ['Stop the profiler or let it finish.', "Restart the node's exporter.", 'Deploy the same counter file on every node.'],
        escalation: 'Infrastructure on-call.',
        dashboards: ['L3'],
      },
    },

    GPUDriverNotValidated: {
      team: $.teams.infra,
      family: 'hygiene',
      severity: 'warning',
      expr: e.fill(|||
        count by ($(cluster), $(model), $(driver)) ($(gate)) > 0
      |||, { cluster: l.cluster, model: l.modelName, driver: l.driverVersion, gate: gate }),
      'for': '30m',
      identity: [l.cluster, l.modelName, l.driverVersion],
      summary: 'GPUs run a driver outside the branches validated for their SKU.',
      description: '{{ $value }} {{ $labels.' + l.modelName + ' }} GPUs in cluster {{ $labels.' + l.cluster + ' }} run driver {{ $labels.' + l.driverVersion + ' }}, outside the branches the compatibility gate (compatibility.driverBranches) validates for that SKU.',
      tests: [
        t.case('an H100 node on driver 470', true, [], gpus=2, drivers=['470.256.02', '470.256.02'], target={ [l.modelName]: 'NVIDIA H100 80GB HBM3', [l.driverVersion]: '470.256.02' }, value=2),
        t.case('a validated branch', false, [], gpus=2, drivers=['570.124.06', '570.124.06']),
        t.case('a validated newer branch (595)', false, [], gpus=2, drivers=['595.58.03', '595.58.03']),
        t.case('a branch newer than the gate knows (info, not this ticket)', false, [], gpus=2, drivers=['610.12.01', '610.12.01'], alsoFires=[t.also('GPUDriverNewerThanGate', 2)]),
      ],
      runbook: {
        meaning: "GPUs run an NVIDIA driver whose branch the catalog's compatibility gate does not list for their SKU.",
        impact: 'CUDA and framework versions validated on the fleet may fail or misbehave on them; a driver regression would hit exactly these nodes.',
        queries: [
          q('GPUs outside the gate', gate + '{' + is(l.cluster) + '}'),
          q('Nodes outside the gate', 'group by (' + l.host + ', ' + l.driverVersion + ') (' + gate + '{' + is(l.cluster) + '})'),
        ],
        diagnosis: [
          step('Is a driver rollout in progress?', 'Is the new branch validated? Add it to compatibility.driverBranches, or stop the rollout.', 'Reimage the nodes with the fleet image.'),
        ],
        mitigation: ['Roll the nodes back to a validated driver.', 'Validate the branch, then add it to the gate.'],
        escalation: 'Infrastructure on-call.',
        dashboards: ['L2'],
      },
    },
    GPUDriverNewerThanGate: {
      team: $.teams.infra,
      family: 'hygiene',
      severity: 'info',
      expr: e.fill(|||
        count by ($(cluster), $(model), $(driver)) ($(newer)) > 0
      |||, { cluster: l.cluster, model: l.modelName, driver: l.driverVersion, newer: newer }),
      'for': '30m',
      identity: [l.cluster, l.modelName, l.driverVersion],
      summary: 'GPUs run a driver branch newer than every branch the gate lists for their SKU.',
      description: '{{ $value }} {{ $labels.' + l.modelName + ' }} GPUs in cluster {{ $labels.' + l.cluster + ' }} run driver {{ $labels.' + l.driverVersion + ' }}, a branch newer than every one the compatibility gate (compatibility.driverBranches) lists for that SKU.',
      tests: [
        t.case('an H100 node on a branch after the newest listed', true, [], gpus=2, drivers=['610.12.01', '610.12.01'], target={ [l.modelName]: 'NVIDIA H100 80GB HBM3', [l.driverVersion]: '610.12.01' }, value=2),
        t.case('a four-digit branch', true, [], gpus=1, drivers=['1010.1.1'], target={ [l.modelName]: 'NVIDIA H100 80GB HBM3', [l.driverVersion]: '1010.1.1' }, value=1),
        t.case('the newest listed branch', false, [], gpus=2, drivers=['595.58.03', '595.58.03']),
        t.case('an old branch (the ticket, not this)', false, [], gpus=1, drivers=['470.256.02'], alsoFires=[t.also('GPUDriverNotValidated', 1)]),
      ],
      runbook: {
        meaning: "GPUs run an NVIDIA driver from a branch newer than every branch the catalog's compatibility gate lists for their SKU: NVIDIA released a branch the gate has not caught up with, and a node runs it.",
        impact: 'None by itself: the gate has not validated the branch, so the fleet runs a driver nobody signed off. It is news for whoever keeps the gate, not a fault.',
        queries: [
          q('GPUs on a newer branch', newer + '{' + is(l.cluster) + '}'),
          q('Nodes on a newer branch', 'group by (' + l.host + ', ' + l.driverVersion + ') (' + newer + '{' + is(l.cluster) + '})'),
        ],
        diagnosis: [
          step('Was the branch rolled out on purpose (a validation pool)?', 'Validate it, then add it to compatibility.driverBranches for the SKU.', 'Find which image brought it, and pin the fleet image.'),
        ],
        mitigation: ['Add the branch to compatibility.driverBranches once validated.', 'Reimage the nodes with the fleet image if the rollout was not meant.'],
        escalation: 'Infrastructure team, in working hours.',
        dashboards: ['L2'],
      },
    },
  },
}
