// LLM serving engines as data: what each engine's /metrics really sends (names, types, the
// label that names the model, the labels it adds, histogram ladders, where it serves them),
// and what it cannot show. inference.engines lists the engines the fleet serves with; every
// SLO, SLI and L4 latency panel reads each listed engine that has the quantity, and an engine
// without it is left out of that rule (docs/catalog.md's engine table says which).
//
// A profile's quantities, each { name, type, buckets (histograms, seconds), deprecated (an
// older name of the same series, read where a server lacks the current one) }:
//   timeToFirstToken, interTokenLatency, requestLatency (end to end): histograms in seconds;
//   and the phases of a request, for the latency breakdown: queueTime (waiting to be
//   scheduled), prefillTime (the prompt, up to the first token), decodeTime (the output).
// Its other fields: title, modelLabel (the label its series name the model by; the rules
// relabel it to inference.modelLabel where they differ), labels (what it adds beyond the
// server's), selector (matchers that keep the rules to this engine's own servers: an engine
// behind a frontend that is also listed counts each request twice), endpoint, enable (what
// turns the metrics on), and for scenarios job (a scrape job's name), port and example (the
// labels beyond the model's that its series carry, valued as the engine writes them) and
// wholeBound (what follows a whole bucket bound in its le label: '.0' from Python's client,
// '' from Rust's).
//
// Its requests: the counters of the requests it answered, { counters (name: the labels its
// series carry), served (the reads of the requests it admitted: its inference handlers,
// rejections left out), failed (those of them that failed on the server's side), rejected
// (those it refused at admission on purpose, load shedding: [] where it cannot tell them from
// failures), and example (for scenarios: the series of a success, a failure and a rejection,
// each { name, labels }) }, each read { name, selector }. The request-error SLO reads
// served and failed; the shedding alert reads rejected. Its modelRequests, in the same shape,
// where its requests name no model but other counters do (vLLM's): the release gate's.
//
// Its roles, where a layout puts servers that do not answer clients beside those that do:
// { name: { servers (a read of a series only those servers send), leaves (the quantities,
// `requests` and the fields not read from them: they would count a client's request twice),
// example and target (the labels its series carry, and those of its scrape targets, for
// scenarios) } }: SGLang's prefill servers, and workers behind a frontend
// (lib/engine.libsonnet's behindFrontend: Dynamo's).
//
// Its switches, where some of its fields need a setting beyond `enable`: { name: { set (the
// setting, in words), fields (those it switches on) } }; GPUInferenceMetricsSwitchedOff tickets
// a server that answers requests without them.
//
// Its gauges and counters beyond the histograms, each a list of reads in the order a server's
// series is preferred (its first it exports is read): waiting (its queue), kvCache (the KV
// cache's used share, 0 to 1), preemptions (each read's type: counter, or gauge for a level
// such as TensorRT-LLM's paused requests), generated (the counter of output tokens) and
// running (the requests being decoded); awake(series), where the engine can sleep, leaves a
// sleeping engine's series out. The queue, KV-cache and throughput alerts read every served
// engine that shows what they read.
//
// The throughput, goodput, latency-breakdown and release-gate rules read every served engine
// that shows what they read. The vLLM-only check (metric-missing) is in the section vllm, on
// where inference.engines lists vllm (enabled.vllm); it reads vLLM's series through readAs and
// seriesOf, with its selector.
local e = import '../lib/expr.libsonnet';
{
  // vLLM's metric names (label model_name); older releases call the KV-cache gauge
  // vllm:gpu_cache_usage_perc. `requests` is the HTTP request counter of vLLM's API server
  // (prometheus-fastapi-instrumentator: handler, method, status as 2xx/4xx/5xx).
  inference:: {
    kvCacheUsage: 'vllm:kv_cache_usage_perc',
    // The KV-cache gauge's name before vLLM 0.10 (removed in 0.12), read only where a server
    // does not export kvCacheUsage: a fleet upgrading vLLM server by server has both.
    kvCacheUsageDeprecated: 'vllm:gpu_cache_usage_perc',
    local inference = self,
    // The KV-cache usage, over a range function (`avg_over_time(%s[10m])`, or '%s' for the
    // instant value; or a function of the series' name), under the current name or else the
    // deprecated one.
    kvCache(f='%s')::
      local apply(name) = if std.isFunction(f) then f(name) else std.strReplace(f, '%s', name);
      e.fill('($(current) or $(deprecated))', { current: apply(inference.kvCacheUsage), deprecated: apply(inference.kvCacheUsageDeprecated) }),
    waiting: 'vllm:num_requests_waiting',
    // vLLM 0.20 and later split the waiting count by reason: capacity (queued for room in the
    // running batch, preempted requests included) and deferred (parked by the scheduler: a
    // structured-output grammar, remote KV, a LoRA slot). A backlog is the capacity queue
    // where this series exists, the whole count otherwise.
    waitingByReason: 'vllm:num_requests_waiting_by_reason',
    // vLLM's sleep mode (0.11.1 and later): one series per state (awake, weights_offloaded,
    // discard_all), 1 on the engine's current one. An engine whose awake series is 0 sleeps
    // (or has paused scheduling): it holds its GPU idle, accepts requests without serving them
    // and keeps its last KV-cache reading, by design. asleep is that condition, per server and
    // engine; awake(series) keeps the series of engines that do not sleep.
    sleepState: 'vllm:engine_sleep_state',
    asleep(by=inference.engineLabels):: e.fill(|||
      max by ($(by)) ($(state){sleep_state="awake"}) == 0
    |||, { by: std.join(', ', by), state: inference.sleepState }),
    awake(series):: e.fill('($(series) unless on ($(engine)) ($(asleep)))', { series: series, engine: std.join(', ', inference.engineLabels), asleep: inference.asleep() }),
    // The labels that name one engine of a server: data-parallel vLLM runs several per pod.
    engineLabels: [$.labels.cluster, 'namespace', 'pod', 'engine'],
    running: 'vllm:num_requests_running',
    // The inter-token latency histogram's only name before vLLM 0.11 (deprecated in 0.11,
    // hidden in 0.12, removed since; the same observations and buckets), read only where a
    // server does not export interTokenLatency: by the TPOT SLO and goodput.
    interTokenLatencyDeprecated: 'vllm:time_per_output_token_seconds',
    // The label that names the model a server serves (vLLM, SGLang and TensorRT-LLM:
    // model_name; NVIDIA Dynamo's frontend and Triton: model).
    modelLabel: 'model_name',
    preemptions: 'vllm:num_preemptions_total',
    ttft: 'vllm:time_to_first_token_seconds',
    e2eLatency: 'vllm:e2e_request_latency_seconds',
    requests: 'http_requests_total',
    // The engine's requests finished, by model and finished_reason.
    requestsFinished: 'vllm:request_success_total',
    // Handlers that serve inference.
    handlers: '/v1/completions|/v1/chat/completions',
    // What an inference alert keeps.
    identity: [$.labels.cluster, 'namespace', 'pod', inference.modelLabel],
    // vLLM's bucket ladders (vllm/v1/metrics/buckets.py; the same lists inline in
    // vllm/v1/metrics/loggers.py before): a latency threshold read from the classic buckets
    // must be one of its histogram's bounds, or the selector reads nothing.
    buckets: {
      timeToFirstToken: [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 20, 40, 80, 160, 640, 2560],
      interTokenLatency: [0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 20, 40, 80],
      // Shared by the end-to-end, queue, prefill, decode and inference times.
      requestLatency: [0.3, 0.5, 0.8, 1, 1.5, 2, 2.5, 5, 10, 15, 20, 30, 40, 50, 60, 120, 240, 480, 960, 1920, 7680],
    },
    // vLLM's names of the quantities the throughput, latency-breakdown and TPOT rules read.
    generationTokens: 'vllm:generation_tokens_total',
    interTokenLatency: 'vllm:inter_token_latency_seconds',
    queueTime: 'vllm:request_queue_time_seconds',
    prefillTime: 'vllm:request_prefill_time_seconds',
    decodeTime: 'vllm:request_decode_time_seconds',

    // The engines the fleet serves with: profile names (vllm, sglang, dynamo, trtllm, triton).
    engines: ['vllm'],

    profiles: {},

    // An engine's server in scenarios: its scrape target's labels, and where `serving` those
    // its model series carry (the model, under the engine's label, and its example labels).
    scenarioServer(engine, serving=false)::
      local p = inference.profiles[engine];
      { namespace: 'inference', pod: 'llm-0', job: p.job, instance: 'llm-0:' + p.port }
      + (if serving then { [p.modelLabel]: 'llama-3-8b' } + p.example else {}),
    // The servers of an engine's roles that leave `quantity` to the scenario's server (or,
    // `leaving` false, that are read for it), beside it in scenarios: each { server: its labels
    // (as scenarioServer's, serving), target: its scrape target's alone, role: the series that
    // tells its role, name: the role's }. Those leaving it see the same requests, and the
    // rules must not count them.
    scenarioRoles(engine, quantity, leaving=true)::
      local p = inference.profiles[engine];
      [
        local r = p.roles[name];
        local pod = 'llm-' + name + '-0';
        local target = inference.scenarioServer(engine) { pod: pod, instance: pod + ':' + p.port } + std.get(r, 'target', {});
        local server = inference.scenarioServer(engine, serving=true) + target + r.example;
        {
          name: name,
          server: server,
          target: target,
          role: { name: r.servers.name, values: '1x60', labels: server + r.servers.labels },
        }
        for name in std.objectFields(std.get(p, 'roles', {}))
        if std.member(p.roles[name].leaves, quantity) == leaving
      ],

    // The quantities a profile may have, in the order the engine table lists them.
    quantities: ['timeToFirstToken', 'interTokenLatency', 'requestLatency'],
    // The gauges and counters a profile may have beyond its histograms.
    fields: ['waiting', 'kvCache', 'preemptions', 'generated', 'running'],
    // The phases of a request a profile may time, by the word the breakdown records use.
    phases: { queue: 'queueTime', prefill: 'prefillTime', decode: 'decodeTime' },

    // The reads of an engine's quantity, for the histogram builders: a plain name where the
    // engine needs no selector nor relabeling, else { name, selector, relabel }; its current
    // name before its deprecated one.
    readOf(engine, quantity)::
      local q = inference.profiles[engine][quantity];
      local leaving = inference.leaving(engine, quantity);
      local reads = [inference.readAs(engine, q.name)] + (if std.get(q, 'deprecated') == null then [] else [inference.readAs(engine, q.deprecated)]);
      if leaving == null then reads
      else [(if std.isString(r) then { name: r, selector: '', relabel: null } else r) { unless: leaving } for r in reads],

    // A read's series but those of the servers `leaving` selects (null: all of them).
    without(read, leaving):: if leaving == null then read else e.fill('($(read) unless on ($(server)) $(leaving))', {
      read: read,
      server: std.join(', ', inference.serverLabels),
      leaving: leaving,
    }),
    // The servers of an engine whose role leaves a quantity (or `requests`) to others, for an
    // `unless on (server)` of its reads; null where no role does.
    leaving(engine, quantity)::
      local p = inference.profiles[engine];
      local roles = [r for r in std.objectValues(std.get(p, 'roles', {})) if std.member(r.leaves, quantity)];
      if roles == [] then null
      else e.fill('group by ($(server)) ($(servers))', {
        server: std.join(', ', inference.serverLabels),
        servers: std.join(' or ', [inference.seriesOf(engine, r.servers.name, r.servers.selector) for r in roles]),
      }),
    // The labels that name a server.
    serverLabels: [$.labels.cluster, 'namespace', 'pod'],

    // A read of one of an engine's series by name, for the histogram builders: a plain name
    // where the engine needs no selector nor relabeling, else { name, selector, relabel }.
    readAs(engine, name)::
      local p = inference.profiles[engine];
      if p.selector == '' && p.modelLabel == inference.modelLabel then name
      else {
        name: name,
        selector: p.selector,
        relabel: if p.modelLabel == inference.modelLabel then null else { from: p.modelLabel, to: inference.modelLabel },
      },

    // One of an engine's series by name, selected with its profile's selector and `matchers`
    // (a selector's inside): for the rules that read one engine's own metrics by name.
    seriesOf(engine, name, matchers='')::
      local inside = e.inside([inference.profiles[engine].selector, matchers]);
      name + (if inside == '' then '' else '{' + inside + '}'),

    // The reads of a quantity across the engines served that have it.
    read(quantity):: std.flattenArrays([inference.readOf(engine, quantity) for engine in inference.having(quantity)]),

    // The engines served that have a quantity: a latency SLO or panel on a quantity none has
    // is not generated.
    having(quantity):: if std.objectHas(inference.havingEach, quantity) then inference.havingEach[quantity] else [],
    // ...worked out once for each quantity a profile has (having is read for every rule).
    havingEach:: {
      [q]: inference.showing([q])
      for q in std.set(std.flattenArrays([std.objectFields(inference.profiles[x]) for x in inference.engines]))
    },
    // The engines served that have every one of `fields`.
    showing(fields):: [engine for engine in inference.engines if std.length([f for f in fields if !std.objectHas(inference.profiles[engine], f)]) == 0],

    // What each alert and SLO fed by the engines reads of a profile: a served engine without
    // all of it is left out of that rule, and where no served engine has it the rule is not
    // generated. (The shedding alert and the release gate read what `shedding` and `gated` say.)
    feeding:: {
      GPUInferenceKVCachePressure: ['kvCache', 'preemptions'],
      GPUInferenceQueueGrowing: ['waiting'],
      GPUInferenceThroughputDrop: ['generated', 'running'],
      InferenceTTFT: ['timeToFirstToken'],
      InferenceTPOT: ['interTokenLatency'],
      InferenceLatency: ['requestLatency'],
      InferenceErrors: ['requests'],
    },
    // The alerts and SLOs a served engine is left out of, for lack of what they read.
    leftOut(engine)::
      local p = inference.profiles[engine];
      [name for name in std.objectFields(inference.feeding) if !std.all([std.objectHas(p, f) for f in inference.feeding[name]])]
      + (if std.member(inference.shedding, engine) then [] else ['GPUInferenceRequestsShed'])
      + (if std.member(inference.gating, engine) then [] else ['GPUInferenceCanaryRollback']),

    // The engines served that count their requests, and those that also tell rejections at
    // admission apart.
    answering:: inference.having('requests'),
    // The engines served whose throughput the records and alert read (output tokens over the
    // requests running), whose goodput they read (output tokens and both latency histograms),
    // and whether the release gate has an engine to compare (first tokens, or requests counted
    // per model).
    decoding:: inference.showing(inference.feeding.GPUInferenceThroughputDrop),
    goodput:: inference.showing(['generated', 'timeToFirstToken', 'interTokenLatency']),
    gated:: inference.gating != [],
    // The engines the release gate compares: by first tokens, or by requests counted per model.
    gating:: std.set(inference.having('timeToFirstToken') + inference.countingPerModel),

    // The engines served that count their requests per model (every counter of their
    // modelRequests, or else of their requests, labels the model; SGLang's HTTP counter does
    // not), and those counters of an engine.
    countingPerModel:: [
      x
      for x in inference.answering
      if std.all(
        [std.member(labels, inference.profiles[x].modelLabel) for labels in std.objectValues(inference.perModel(x).counters)],
      )
    ],
    perModel(engine):: std.get(inference.profiles[engine], 'modelRequests', inference.profiles[engine].requests),
    shedding:: [engine for engine in inference.answering if inference.profiles[engine].requests.rejected != []],

    // The series of a field (waiting, kvCache, preemptions, generated, running) of every served
    // engine that has it, in the profile's order: each read with its selector, the profile's
    // and `matchers`, `f` applied (a range function: 'deriv(%s[10m])', or a function of the
    // read giving one; '%s' for the instant value), without the servers of a role that leaves
    // the field to others, without a sleeping engine's where `awake` and the profile says how,
    // relabelled to inference.modelLabel where the engine names the model otherwise.
    gauges(field, f='%s', matchers='', awake=false)::
      [
        local inside = e.inside([r.selector, p.selector, matchers]);
        local format = if std.isFunction(f) then f(r) else f;
        local read = std.strReplace(format, '%s', r.name + (if inside == '' then '' else '{' + inside + '}'));
        local kept = inference.without(read, inference.leaving(engine, field));
        local series = if awake && std.objectHasAll(p, 'awake') then p.awake(kept) else kept;
        if p.modelLabel == inference.modelLabel then series
        else e.fill('label_replace($(series), "$(to)", "$1", "$(from)", "(.*)")', { series: series, to: inference.modelLabel, from: p.modelLabel })
        for engine in inference.having(field)
        for p in [inference.profiles[engine]]
        for r in p[field]
      ],

    // For gauges: a read's series counted once across the ranks its labels name (its labels
    // beyond the server's: SGLang's tensor-parallel ranks each report the same batch).
    onceAcrossRanks(r):: if r.labels == {} then '%s' else e.fill('max without ($(ranks)) (%s)', { ranks: std.join(', ', std.objectFields(r.labels)) }),

    // The requests of some outcomes (served, failed, rejected) of every engine in `engines`,
    // per second over w, summed by `by`: each engine's counters (its requests, or perModel's)
    // read with their selectors, the profile's and `matchers` (a selector's inside, '' for
    // none), relabelled to inference.modelLabel where `by` keeps the model and the engine
    // names it otherwise.
    requestRate(outcomes, engines, by, w, matchers='', perModel=false)::
      local reads = [
        r {
          selector: e.inside([r.selector, p.selector, matchers]),
          relabel: std.member(by, inference.modelLabel) && p.modelLabel != inference.modelLabel,
          from: p.modelLabel,
          unless: std.get(r, 'unless', inference.leaving(engine, 'requests')),
        }
        for engine in engines
        for p in [inference.profiles[engine]]
        for o in outcomes
        for r in (if perModel then inference.perModel(engine) else p.requests)[o]
      ];
      e.fill(|||
        sum$(by) ($(rates))
      |||, {
        by: if by == [] then '' else ' by (' + std.join(', ', by) + ')',
        rates: std.join(' or ', [
          local read = e.fill('rate($(name)$(selector)[$(window)])', { name: r.name, selector: if r.selector == '' then '' else '{' + r.selector + '}', window: w });
          local rate = inference.without(read, r.unless);
          if !r.relabel then rate else e.fill('label_replace($(rate), "$(to)", "$1", "$(from)", "(.*)")', { rate: rate, to: inference.modelLabel, from: r.from })
          for r in reads
        ]),
      }),
  },


  // The deployment label that tells a canary's series from the baseline's, for release gates.
  release: {
    label: 'track',
    canary: 'canary',
    baseline: 'stable',
  },

  // The profiles as docs/catalog.md's engine table shows them.
  engines: {
    [name]: {
      local p = $.inference.profiles[name],
      title: p.title,
      served: $.enabled.inference && std.member($.inference.engines, name),
      modelLabel: p.modelLabel,
      endpoint: p.endpoint,
      enable: p.enable,
      metrics: { [q]: p[q].name for q in $.inference.quantities if std.objectHas(p, q) },
      requests: if std.objectHas(p, 'requests') then std.objectFields(p.requests.counters) else [],
      refusals: if std.objectHas(p, 'requests') then [r.name + '{' + r.selector + '}' for r in p.requests.rejected] else [],
      // The gauges and counters beyond the histograms it shows, and the alerts and SLOs that
      // leave it out for lack of what they read.
      shows: [f for f in $.inference.fields if std.objectHas(p, f)],
      leftOutOf: if self.served then $.inference.leftOut(name) else [],
      // The SLOs and alerts that read it: those naming it among their engines, and the
      // section vllm's alerts for vLLM.
      feeds: if !self.served then [] else
        [n for n in std.objectFields($.slos) if std.member(std.get($.slos[n], 'engines', []), name)]
        + [n for n in std.objectFields($.alerts) if std.member(std.get($.alerts[n], 'engines', []), name) || (name == 'vllm' && std.get($.alerts[n], 'section') == 'vllm')],
    }
    for name in std.objectFields($.inference.profiles)
  },

  // The served engines' histograms, for lint and the bucket-bound check (their ladders),
  // their request counters and gauges.
  local server(p) = [$.labels.cluster, 'job', 'instance', 'namespace', 'pod', p.modelLabel, $.release.label] + p.labels,
  metrics+: {
    [q.name]: { section: 'inference', type: q.type, labels: server(p), buckets: q.buckets }
    for engine in $.inference.engines
    for p in [$.inference.profiles[engine]]
    for quantity in $.inference.quantities + std.objectValues($.inference.phases)
    if std.objectHas(p, quantity)
    for q in [p[quantity]] + (if std.get(p[quantity], 'deprecated') == null then [] else [p[quantity] { name: p[quantity].deprecated }])
  } + {
    [name]: { section: 'inference', type: 'counter', labels: [$.labels.cluster, 'job', 'instance', 'namespace', 'pod', $.release.label] + labels }
    // vLLM's are among its own metrics (section vllm), which a rule of another section may
    // need even where vLLM is not served.
    for engine in $.inference.answering
    if engine != 'vllm'
    for counters in [$.inference.profiles[engine].requests.counters]
    for name in std.objectFields(counters)
    for labels in [counters[name]]
  } + {
    [r.name]: { section: 'inference', type: std.get(r, 'type', 'gauge'), labels: server(p) + std.objectFields(r.labels) }
    for field in $.inference.fields
    for engine in $.inference.having(field)
    if engine != 'vllm'
    for p in [$.inference.profiles[engine]]
    for r in p[field]
  },
}
