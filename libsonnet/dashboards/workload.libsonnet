// L4, a workload: a namespace's pods, their GPUs and the serving engines' latency and throughput.
local e = import '../lib/expr.libsonnet';
local names = import '../lib/names.libsonnet';
local panels = import '../lib/panels.libsonnet';
{
  local p = panels($),
  local sloAt = p.sloAt,
  local thresholdOf = p.thresholdOf,
  local fill = p.fill,
  local q = p.q,
  local panel = p.panel,
  local ratio = p.ratio,
  local row = p.row,
  local v = p.v,
  local is = p.is,
  local cluster = p.cluster,
  local workload = p.workload,
  local workloadSeries = p.workloadSeries,
  local server = p.server,
  local clusterVar = p.clusterVar,
  local unitOf = p.unitOf,
  local l = $.labels,
  local th = $.thresholds,
  local inf = $.inference,

  dashboards+: {
    L4: {
      uid: $.deploy.grafana.uidPrefix + '-l4-workload',
      title: 'GPU workload',
      // The inference row goes with the inference section: so does its mention.
      local slurm = $.scheduler == 'slurm',
      description: if slurm then 'The GPUs of one workload (Slurm jobs).' else 'The GPUs of one workload (pods of a namespace)' + (if $.enabled.inference then ', and its inference metrics when it serves with vLLM' else '') + '.',
      vars: if slurm then { cluster: l.cluster, job: l.job } else { cluster: l.cluster, namespace: l.namespace, pod: l.pod },
      // The namespaces a GPU's pod is in, and those a served engine's servers run in: a server
      // whose GPU the exporter attributes to no pod (claimed through DRA) is one. (Engines'
      // series name the namespace namespace: read where the catalog names it so too.)
      local servingNamespaces = if !$.enabled.inference || l.namespace != 'namespace' then [] else [inf.profiles[x].running[0].name for x in inf.having('running')],
      variables: if slurm then [
        clusterVar,
        // One job at a time: a job may span thousands of GPUs.
        v('job', 'Job', fill('label_values($(gpuInfo){$(cluster)}, $(job))', { gpuInfo: names.gpuInfo, job: l.job })),
      ] else [
        clusterVar,
        v('namespace', 'Namespace', fill('label_values({__name__=~"$(piece)", $(cluster)}, $(namespace))', { piece: std.join('|', [names.gpuInfo] + servingNamespaces), namespace: l.namespace })),
        v('pod', 'Pod', fill('label_values($(gpuInfo){$(cluster), $(namespace)}, $(pod))', { gpuInfo: names.gpuInfo, namespace: is(l.namespace, 'namespace'), pod: l.pod }), multi=true),
      ],
      links: ['L2', 'L5'],
      local byPod = '{{' + (if slurm then l.job else l.pod) + '}} GPU {{' + l.gpu + '}} {{' + l.migInstance + '}}',
      // A field of every served engine that shows it (inference.gauges), on the panel's server.
      local all(field, f='%s') = std.join(' or ', inf.gauges(field, f, matchers=server)),
      // A latency quantity's quantiles, one set per served engine that has it: engines'
      // ladders differ, and one histogram summed from two ladders reads no quantile right.
      local quantiles(quantity) =
        local engines = inf.having(quantity);
        [
          q(
            $.histograms.quantile(p, inf.readOf(engine, quantity), [], '$__rate_interval', server),
            'p' + e.percent(p) + (if std.length(engines) > 1 then ' ' + inf.profiles[engine].title else ''),
          )
          for engine in engines
          for p in [0.5, 0.95, 0.99]
        ],
      rows: [
        row('GPUs', [
          panel('SM activity', 'timeseries', [q(workloadSeries('DCGM_FI_PROF_SM_ACTIVE'), byPod)], drill='L5') + ratio,
          panel('Tensor pipe activity', 'timeseries', [q(workloadSeries('DCGM_FI_PROF_PIPE_TENSOR_ACTIVE'), byPod)]) + ratio,
          panel('DRAM activity', 'timeseries', [q(workloadSeries('DCGM_FI_PROF_DRAM_ACTIVE'), byPod)]) + ratio,
          panel('Memory used', 'timeseries', [q(workloadSeries('DCGM_FI_DEV_FB_USED'), byPod)], unit=unitOf('DCGM_FI_DEV_FB_USED')),
          // Who waits for whom: the GPU over the median computes while the others wait.
          panel("Stragglers: each GPU's tensor activity against its job's median", 'timeseries', [
            q(fill('$(trainingActivity){$(workload)}', { trainingActivity: names.trainingActivity($.windows.straggler) }), byPod),
            if slurm then q(fill('quantile by ($(job)) (0.5, $(trainingActivity){$(workload)})', { trainingActivity: names.trainingActivity($.windows.straggler), job: l.job }), 'median of {{' + l.job + '}}')
            else q(fill('quantile by (owner_name) (0.5, $(trainingActivity){$(cluster), $(namespace)})', { trainingActivity: names.trainingActivity($.windows.straggler), namespace: is(l.namespace, 'namespace') }), 'median of {{owner_name}}'),
          ], description='In a synchronous job the GPU that holds the step back computes the whole step while the others wait: a GPU over ' + e.num(th.stragglerTensorRatio) + '× the median (GPUTrainingStraggler) is the one the others wait for.', width=16) + ratio,
        ]),
      ] + (if slurm then [] else [
             // (A Slurm fleet's servers carry no namespace or pod: the inference row is Kubernetes'.)
             // A latency panel goes where no engine served has its histogram (quantiles of none).
             row('Inference (' + std.join(', ', [inf.profiles[x].title for x in inf.engines]) + ')', std.filter(function(p) p.queries != [], [
               panel('Time to first token', 'timeseries', quantiles('timeToFirstToken'), unit='s', thresholds=sloAt('InferenceTTFT')),
               panel('End-to-end latency', 'timeseries', quantiles('requestLatency'), unit='s'),
               local requests(outcome, engines, legend) = q(inf.requestRate([outcome], engines, [], '$__rate_interval', server), legend);
               panel('Requests per second', 'timeseries', (if inf.answering == [] then [] else [requests('served', inf.answering, 'admitted'), requests('failed', inf.answering, 'failed')])
                                                          + (if inf.shedding == [] then [] else [requests('rejected', inf.shedding, 'refused')]), unit='reqps', description='Admitted, failed on the server side' + (
                 if inf.shedding == [] then '.' else ', and refused at admission on purpose (' + std.join(', ', [inf.profiles[x].title for x in inf.shedding]) + ').'
               )),
               panel(
                 'Requests waiting and running',
                 'timeseries',
                 [
                   q(
                     e.fill('sum($(piece))', { piece: std.join(' or ', [e.fill('max by ($(identity)) ($(g))', { identity: std.join(', ', inf.identity), g: g }) for g in inf.gauges('waiting', matchers=server)]) }),
                     'waiting',
                   )
                   for _ in [1]
                   if inf.having('waiting') != []
                 ] + [q(e.fill('sum($(gauges))', { gauges: std.join(' or ', inf.gauges('running', inf.onceAcrossRanks, matchers=server)) }), 'running') for _ in [1] if inf.having('running') != []],
                 thresholds=thresholdOf('GPUInferenceQueueGrowing', 'waiting'),
                 description="Waiting: each engine's queue" + (if $.enabled.vllm then " (vLLM's capacity queue where it splits it)" else '') + '; running: the requests being decoded.',
               ),
               panel('KV-cache usage', 'timeseries', [q(all('kvCache'), '{{pod}}') for _ in [1] if inf.having('kvCache') != []], thresholds=thresholdOf('GPUInferenceKVCachePressure', 'kvCache')) + ratio,
               panel(
                 'Preemptions',
                 'timeseries',
                 [q(e.fill('sum($(all))', { all: all('preemptions', function(r) if r.type == 'counter' then 'rate(%s[$__rate_interval])' else '%s') }), 'preemptions') for _ in [1] if inf.having('preemptions') != []],
                 unit=if std.all([r.type == 'counter' for x in inf.having('preemptions') for r in inf.profiles[x].preemptions]) then 'ops' else 'short',
                 description='Per second where the engine counts them; the requests paused where it shows a level.',
               ),
               panel('Time per output token', 'timeseries', quantiles('interTokenLatency'), unit='s', thresholds=sloAt('InferenceTPOT')),
               panel(
                 'Where a request spends its time (mean)',
                 'timeseries',
                 [q(fill('model:inference_request_$(phase)_time_seconds:mean_rate5m{$(model)}', { phase: phase }), phase + ' {{' + inf.modelLabel + '}}') for phase in ['queue', 'prefill', 'decode'] if inf.having(inf.phases[phase]) != []],
                 unit='s',
                 description='Waiting in the queue, prefill (the prompt, up to the first token), decode (the output tokens).',
                 stack=true,
               ),
               panel(
                 'Throughput and goodput',
                 'timeseries',
                 [
                   q(fill('model:inference_generation_tokens:rate5m{$(model)}'), 'tokens/s {{' + inf.modelLabel + '}}')
                   for _ in [1]
                   if inf.having('generated') != []
                 ] + [q(fill('model:inference_goodput_tokens:rate5m{$(model)}'), 'goodput {{' + inf.modelLabel + '}}') for _ in [1] if inf.goodput != []],
                 description='Goodput: tokens/s of requests that met the TTFT (' + e.num(th.ttftSeconds) + ' s) and TPOT (' + e.num(th.tpotSeconds) + ' s) objectives.',
               ),
               panel(
                 'Tokens per running request',
                 'timeseries',
                 [q(fill('model:inference_generation_tokens_per_running_request:ratio_rate5m{$(model)}'), '{{' + inf.modelLabel + '}}') for _ in [1] if inf.decoding != []],
                 description='Decode speed per request in flight: GPUInferenceThroughputDrop compares it with the ' + $.windows.throughputBaseline + ' before.',
               ),
               panel(
                 'Canary decision',
                 'stat',
                 [q(fill('model:inference_canary:decision{$(model)}'), '{{' + inf.modelLabel + '}}') for _ in [1] if $.enabled.release && inf.gated],
                 description='0 promote, 1 hold, 2 roll back: the worse of the p99 TTFT ratio and the error-ratio increase against the thresholds.',
                 thresholds=[[null, 'green'], [1, 'orange'], [2, 'red']],
                 min=0,
                 max=2,
                 width=8,
               ),
             ])),
           ]) + (if !$.enabled.nccl then [] else [
                   // NCCL Inspector's windows of the workload's ranks (section nccl): each rank is a
                   // pod (the inspector's host name, copied into the pod label) and its GPU. The
                   // inspector's series carry no namespace: the pods of the workload's GPUs pick them.
                   // On Slurm they name their job (slurm_job_id), and the job picked picks them.
                   local nc = $.nccl;
                   local ranks(metric) = if slurm then e.fill(|||
                     $(metric){job="$(job)", $(cluster), slurm_job_id=~"$job"}
                   |||, { metric: metric, job: nc.job, cluster: cluster })
                   else e.fill(|||
                     label_replace($(metric){job="$(job)", $(cluster), $(rank)=~"$pod"}, "$(pod)", "$1", "$(rank)", "(.*)") and on ($(clusterLabel), $(pod)) group by ($(clusterLabel), $(pod)) (gpu_pod:dcgm_gpu_info:group{$(workload)})
                   |||, { metric: metric, job: nc.job, cluster: cluster, rank: nc.podLabel, clusterLabel: l.cluster, pod: l.pod, workload: workload });
                   local byRank = '{{' + nc.podLabel + '}} {{gpu}} {{collective}} {{message_size}}';
                   local byPeer = '{{' + nc.podLabel + '}} {{gpu}} {{p2p_operation}} {{message_size}}';
                   row('Collectives (NCCL Inspector)', [
                     panel('Execution time per rank', 'timeseries', [q(ranks('nccl_collective_exec_time_microseconds'), byRank)], unit='µs', description='The mean of each dump window, per rank, collective and message size, timed on the GPU: a rank that reaches a collective early waits there for the others, so the rank far below its peers is the one that arrives last, the straggler they wait for.', width=12),
                     panel('Bus bandwidth per rank', 'timeseries', [q(ranks('nccl_bus_bandwidth_gbs'), byRank)], unit='none', description='GB/s, the geometric mean of each dump window: ranks that wait for a late one read less. When even the best rank of a communicator is far below what the same collective and size reach elsewhere, the collective is starved.', width=12),
                     panel('Point-to-point time per rank', 'timeseries', [q(ranks('nccl_p2p_exec_time_microseconds'), byPeer)], unit='µs', description="Sends and receives between pipeline stages (NCCL_INSPECTOR_ENABLE_P2P=1), per rank and message size, timed on the GPU: a transfer's time includes waiting for the stage at its other end to reach it.", width=12),
                     panel('Point-to-point bus bandwidth per rank', 'timeseries', [q(ranks('nccl_p2p_bus_bandwidth_gbs'), byPeer)], unit='none', description='GB/s of sends and receives between pipeline stages, the geometric mean of each dump window.', width=12),
                   ]),
                 ]),
    },
  },
}
