// GPU pods that cannot be scheduled (no node, or on DRA nodes a claim nobody allocates or a
// driver that fails to prepare it) and namespace GPU quotas nearly used up.
local e = import '../lib/expr.libsonnet';
local rb = import '../lib/runbook.libsonnet';
local t = import '../lib/test.libsonnet';
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
  local pod = [l.cluster, 'namespace', 'pod'],
  local q = rb.query,
  local step = rb.step,
  local is = rb.is,
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
  // DRA: on nodes that hand GPUs out through ResourceClaims, a pod waits for its claim's
  // devices, and kubelet prepares them before the pod starts.
  local k = $.kubernetes,
  local dra = k.dra,
  local unallocatedClaims = 'namespace:kube_resourceclaims_unallocated:count',
  local claimUnallocated = e.fill(|||
    max by ($(claim)) (kube_resourceclaim_status_allocated{job="$(job)"}) == 0
  |||, { claim: std.join(', ', [l.cluster, 'namespace', 'resourceclaim']), job: ksmJob }),
  local claim(metric, name, values, labels={}) = t.series(metric, values, e.ksm(ksmJob, { namespace: 'research', resourceclaim: name } + labels)),

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
       }),

  alerts+: {
    local mlp = { team: $.teams['ml-platform'] },

    GPUPodUnschedulable: mlp {
      panelThresholds:: { 'namespace:kube_gpu_pod_scheduling_wait_seconds:max': e.seconds(w.unschedulable) },
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
          q('Why: the scheduler events of the pod', e.fill('kube_pod_status_unschedulable{$(cluster), namespace="$namespace", pod="$pod"}', { cluster: is(l.cluster) })),
          q('GPUs it requests', e.fill('sum(kube_pod_container_resource_requests{$(cluster), namespace="$namespace", pod="$pod", resource=~"$(gpuResources)"})', { cluster: is(l.cluster), gpuResources: gpuResources })),
          q('Free GPUs by node', e.fill('sum by (node) (kube_node_status_allocatable{$(cluster), resource=~"$(gpuResources)"}) - sum by (node) (kube_pod_container_resource_requests{$(cluster), resource=~"$(gpuResources)"})', { cluster: is(l.cluster), gpuResources: gpuResources })),
          q('GPU pods waiting in the cluster', e.fill('namespace:kube_gpu_pods_unschedulable:count{$(cluster)}', { cluster: is(l.cluster) })),
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
      |||, {
        quota: std.join(', ', pod[:2] + ['resourcequota', 'resource']),
        job: ksmJob,
        match: if std.length(resources) == 1 then '=' else '=~',
        resources: std.join('|', resources),
        type: type,
      }),
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
          q('Quota use', e.fill('kube_resourcequota{$(cluster), namespace="$namespace", resource="$resource"}', { cluster: is(l.cluster) })),
          q('GPU pods of the namespace', e.fill('sum by (pod) (kube_pod_container_resource_requests{$(cluster), namespace="$namespace", resource=~"$(gpuResources)"})', { cluster: is(l.cluster), gpuResources: gpuResources })),
          q('Idle allocated GPUs of the namespace', e.fill('ALERTS{alertname="GPUAllocatedIdle", $(cluster), namespace="$namespace", alertstate="firing"}', { cluster: is(l.cluster) })),
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
               q('Claims of the namespace and whether they are allocated', e.fill('kube_resourceclaim_status_allocated{$(cluster), namespace="$namespace"}', { cluster: is(l.cluster) })),
               q('GPU devices the nodes publish', e.fill('count by (node_name) (kube_resourceslice_device_info{$(cluster), driver="$(draDriver)"})', { cluster: is(l.cluster), draDriver: k.draDriver })),
               q('GPU devices allocated, by node', e.fill('count by (pool) (kube_resourceclaim_allocation_device_info{$(cluster), driver="$(draDriver)"})', { cluster: is(l.cluster), draDriver: k.draDriver })),
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
             local prepared(values, failed) = t.series(
               'dra_operations_duration_seconds_count',
               values,
               { job: k.kubeletJob, instance: '10.0.0.7:10250', [k.kubeletNodeLabel]: t.scenarioHost, operation_name: 'PrepareResources', is_error: failed },
             );
             [
               t.case('every prepare fails', true, [], extra=[prepared('0+1x60', 'true'), prepared('5x60', 'false')], target={ [l.host]: t.scenarioHost }, value=e.seconds(w.unschedulable) / 60),
               t.case('prepares succeed', false, [], extra=[prepared('0x60', 'true'), prepared('0+2x60', 'false')]),
               t.case('one failure, half an hour ago', false, [], extra=[prepared('0x30 1x30', 'true'), prepared('0+2x60', 'false')]),
             ],
           runbook: {
             meaning: "The node's kubelet asked the DRA driver to prepare the devices of a pod's ResourceClaims (NodePrepareResources) and it failed, " + w.unschedulable + ' or less ago: the driver is down, cannot reach the GPU, or the claim asks for a configuration it cannot make (a MIG layout, a sharing mode).',
             impact: 'Pods scheduled on the node stay in ContainerCreating: their GPUs are allocated and idle.',
             queries: [
               q('Failed prepares of the node', e.fill('increase(dra_operations_duration_seconds_count{$(cluster), $(kubeletNodeLabel)="$$(host)", operation_name="PrepareResources", is_error="true"}[1h])', { cluster: is(l.cluster), kubeletNodeLabel: k.kubeletNodeLabel, host: l.host })),
               q('Hardware alerts on the node', e.fill('ALERTS{alertstate="firing", $(cluster), $(host), $(team)="$(infra)"}', { cluster: is(l.cluster), host: is(l.host), team: l.team, infra: $.teams.infra })),
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
       }),
}
