// Helpers for promtool scenarios in alert definitions and cases of catalog records.
{
  // One input series of a scenario: a metric on the scenario's GPUs, promtool value notation,
  // extra labels; entities selects which GPUs (or MIG instances), by index, carry it; pod=false
  // drops the pod attribution (the series the exporter reports once the pod has exited).
  series(metric, values, labels={}, entities=null, pod=true):: {
    metric: metric,
    values: values,
    labels: labels,
    [if entities != null then 'entities']: entities,
    [if !pod then 'withoutPod']: true,
  },

  // A counter growing by perMinute every minute (tests sample once a minute).
  risingPerMinute(perMinute):: '0+' + perMinute + 'x60',

  // A counter growing by perMinute every minute for its first `minutes`, flat after (to the
  // hour). Promtool expands a+bxn by adding b n times, in floating point: the flat value is
  // that sum, as a product can fall a hair below it (99.7 × 30 is not thirty 99.7s added up)
  // and a rate reads the fall as a counter reset.
  risingFor(perMinute, minutes)::
    if minutes >= 60 then self.risingPerMinute(perMinute)
    else '0+' + perMinute + 'x' + minutes + ' ' + std.foldl(function(sum, _) sum + perMinute, std.range(1, minutes), 0) + 'x' + (60 - minutes),

  // A counter whose increase over the last hour is perHour.
  risingPerHour(perHour):: '0+' + (perHour / 60) + 'x60',

  // A gauge holding each [value, minutes] in turn, in promtool notation: the first value is
  // the sample at 0, each value then repeats for its minutes.
  steps(parts):: std.join(' ', [std.toString(p[0]) + 'x' + p[1] for p in parts]),

  // One scenario on its own cluster and host.
  //   fires      whether the alert fires at the test's evaluation time
  //   value      the alert's value when it fires (rendered in the description)
  //   pod        a pod holds each GPU (each MIG instance)
  //   onePod     ...the same pod: one pod holds every GPU of the scenario
  //   mig        the GPUs are split into two MIG instances
  //   gpus       how many GPUs the host has
  //   drivers    driver version of GPU i
  //   models     SKU (modelName) of GPU i
  //   owner      the Job that owns the scenario's pods (kube_pod_owner)
  //   health     values of the exporter's health field, or false for none
  //   extraHealth  a second health series per GPU without pod labels (pod churn)
  //   counterFile  each GPU sends, with its health field, the first field only the counter
  //              file collects (0 throughout); false for an exporter on its default counter set
  //   up         values of the exporter's up series
  //   nodeInfo   values of kube_node_info for the host (the node is in the Kubernetes API)
  //   extra      series not on a GPU (kube-state-metrics, vLLM) with explicit labels
  //   target     labels of the thing at fault when it is not a GPU (an SLO, a cluster)
  //   firing     which GPU identities (one per GPU or MIG instance, by index) fire; all if null
  //   without    identity labels the alert lacks in this scenario
  //   labels     identity labels the alert has beyond the GPU's (the code of an XID)
  //   alsoFires  other alerts (see also) this scenario makes fire at the same time
  // An option at its default is left out of the case wherever the generator reads its absence
  // the same (false, none, one GPU): writing a field costs the evaluation more than testing it,
  // and there are hundreds of cases.
  case(
    name,
    fires,
    series,
    value=null,
    pod=true,
    onePod=false,
    mig=false,
    gpus=1,
    drivers=[],
    models=[],
    owner='',
    ownerKind='',
    health='65x60',
    extraHealth=null,
    counterFile=true,
    up='1x60',
    nodeInfo=null,
    extra=[],
    target=null,
    firing=null,
    without=[],
    labels={},
    alsoFires=[],
  ):: {
    name: name,
    fires: fires,
    series: series,
    [if value != null then 'value']: value,
    pod: pod,
    [if onePod then 'onePod']: true,
    [if mig then 'mig']: true,
    [if gpus != 1 then 'gpus']: gpus,
    [if drivers != [] then 'drivers']: drivers,
    [if models != [] then 'models']: models,
    [if owner != '' then 'owner']: owner,
    [if ownerKind != '' then 'ownerKind']: ownerKind,
    health: if health == false then '' else health,
    [if extraHealth != null then 'extraHealth']: extraHealth,
    [if !counterFile then 'stockCounters']: true,
    up: up,
    [if nodeInfo != null then 'nodeInfo']: nodeInfo,
    [if extra != [] then 'extra']: extra,
    [if target != null then 'target']: target,
    [if firing != null then 'firing']: firing,
    [if without != [] then 'without']: without,
    [if labels != {} then 'labels']: labels,
    [if alsoFires != [] then 'alsoFires']: alsoFires,
  },

  // Another alert a scenario makes fire, with its value, on the selected GPU identities or the
  // target.
  also(alert, value, firing=null, target=null):: {
    alert: alert,
    value: value,
    [if firing != null then 'firing']: firing,
    [if target != null then 'target']: target,
  },

  // A case of a catalog record: input series with explicit labels, the expression queried
  // (the record by default) and the exact samples expected at the evaluation time.
  recordCase(name, series, expect, expr):: { name: name, expr: expr, series: series, expect: expect },

  // The labels dcgm-exporter puts on a GPU's series, for record cases: l is the catalog's
  // label profile, pod [namespace, name] or null, mig the GPU instance id or null.
  gpu(l, host, index, sku='NVIDIA H100 80GB HBM3', pod=null, mig=null, profile='3g.40gb')::
    {
      [l.cluster]: 'prod',
      [l.host]: host,
      [l.gpu]: std.toString(index),
      [l.uuid]: 'GPU-' + host + '-' + index,
      [l.pciBusId]: '00000000:18:00.0',
      [l.device]: 'nvidia' + index,
      [l.modelName]: sku,
      [l.driverVersion]: '550.90.07',
      job: 'dcgm-exporter',
      instance: host + ':9400',
    }
    + (if pod == null then {} else { [l.namespace]: pod[0], [l.pod]: pod[1], [l.container]: 'main' })
    + (if mig == null then {} else { [l.migInstance]: std.toString(mig), [l.migProfile]: profile }),

  // x rounded to three decimals exactly as PromQL's round(x, 0.001) does, for values that
  // floating point cannot reproduce to the last bit.
  round3(x):: std.floor(x * 1000 + 0.5) / 1000,

  // Stands for the host of a scenario's GPUs in the labels of its extra series and its target:
  // a kube-state-metrics node that the scenario's exporter reports from.
  scenarioHost:: '$host',

  // Stands for the UUID of a scenario's GPU i as CUDA names it (its UUID label's digits without
  // NVML's GPU- prefix) in the labels of its extra series: a file named after the GPU.
  scenarioUUID(i):: '$uuid' + i,

  // The namespace and name of the pod that holds a scenario's first GPU (pod=true), as the
  // generated scenarios name them (generators/promtooltests: scenarioNamespace, the host
  // followed by the pod's index): for the series of the workload in that pod.
  scenarioPod:: { namespace: 'ml-team', pod: '$host-0' },

  // An expected sample.
  sample(labels, value):: { labels: labels, value: value },
}
