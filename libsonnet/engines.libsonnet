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
// served and failed; the shedding alert reads rejected.
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
local e = import 'lib/expr.libsonnet';
{
  inference+:: {
    local inference = self,
    // A read of an engine's series: its name, the matchers that select it, and the labels its
    // series carry beyond the profile's (valued as the engine writes them, for scenarios).
    local read(name, selector, labels={}) = { name: name, selector: selector, labels: labels },
    local outcome(name, labels) = { name: name, labels: labels },
    // The engines the fleet serves with: profile names (vllm, sglang, dynamo, trtllm, triton).
    engines: ['vllm'],

    profiles: {
      vllm: {
        title: 'vLLM',
        // vLLM sends model_name; a fleet that relabels it sets inference.modelLabel.
        modelLabel: inference.modelLabel,
        // engine: the index of a data-parallel engine, on every vllm: series ("0" alone).
        labels: ['engine'],
        selector: '',
        endpoint: '/metrics on the API server port (8000)',
        enable: 'on by default',
        job: 'vllm',
        port: 8000,
        example: { engine: '0' },
        wholeBound: '.0',
        timeToFirstToken: { name: inference.ttft, type: 'histogram', buckets: inference.buckets.timeToFirstToken },
        interTokenLatency: { name: inference.interTokenLatency, type: 'histogram', buckets: inference.buckets.interTokenLatency, deprecated: inference.interTokenLatencyDeprecated },
        requestLatency: { name: inference.e2eLatency, type: 'histogram', buckets: inference.buckets.requestLatency },
        queueTime: { name: inference.queueTime, type: 'histogram', buckets: inference.buckets.requestLatency },
        prefillTime: { name: inference.prefillTime, type: 'histogram', buckets: inference.buckets.requestLatency },
        decodeTime: { name: inference.decodeTime, type: 'histogram', buckets: inference.buckets.requestLatency },
        // Requests waiting for room in the running batch (vLLM 0.20 and later split the count
        // by reason; older servers' whole count also holds requests the scheduler parked).
        waiting: [read(inference.waitingByReason, 'reason="capacity"'), read(inference.waiting, '')],
        // The KV cache's used share (its name before vLLM 0.10 read where a server lacks the
        // current one) and the preemptions counter; a sleeping engine keeps its last reading.
        kvCache: [read(inference.kvCacheUsage, ''), read(inference.kvCacheUsageDeprecated, '')],
        preemptions: [read(inference.preemptions, '') { type: 'counter' }],
        // Output tokens, counted every engine step; the requests in the running batch.
        generated: [read(inference.generationTokens, '') { type: 'counter' }],
        running: [read(inference.running, '')],
        awake(series):: inference.awake(series),
        // The API server's HTTP counter (prometheus-fastapi-instrumentator), status codes
        // grouped as 2xx, 4xx, 5xx: the 503 of vLLM's admission limits (--max-num-queued-reqs,
        // --max-num-queued-tokens, 0.29) is a 5xx like any failure, so a vLLM server that
        // sheds load burns its error budget (no merged vLLM metric counts those rejections).
        requests: {
          local handlers = e.fill(|||
            handler=~"$(handlers)"
          |||, { handlers: inference.handlers }),
          counters: { [inference.requests]: [inference.modelLabel, 'handler', 'method', 'status'] },
          served: [read(inference.requests, handlers)],
          failed: [read(inference.requests, handlers + ', status="5xx"')],
          rejected: [],
          local call = { handler: '/v1/chat/completions', method: 'POST' },
          example: { ok: outcome(inference.requests, call { status: '2xx' }), failed: outcome(inference.requests, call { status: '5xx' }) },
        },
      },

      // SGLang (python/sglang/srt/metrics/collector.py, observability/ in newer trees):
      // metrics only with --enable-metrics, on the HTTP server's /metrics. The latency
      // histograms are the tokenizer's: model_name and engine_type (unified, prefill,
      // decode), no rank labels; the inter-token histogram counts tokens, as vLLM's does.
      sglang: {
        title: 'SGLang',
        modelLabel: 'model_name',
        labels: ['engine_type'],
        selector: '',
        endpoint: '/metrics on the HTTP server port (30000)',
        enable: '--enable-metrics',
        job: 'sglang',
        port: 30000,
        example: { engine_type: 'unified' },
        wholeBound: '.0',
        // The default ladders of SGLang's collector (--bucket-time-to-first-token,
        // --bucket-inter-token-latency and --bucket-e2e-request-latency replace them: set the
        // profile's buckets to what your servers run with).
        timeToFirstToken: { name: 'sglang:time_to_first_token_seconds', type: 'histogram', buckets: [0.1, 0.2, 0.4, 0.6, 0.8, 1, 2, 4, 6, 8, 10, 20, 40, 60, 80, 100, 200, 400] },
        interTokenLatency: { name: 'sglang:inter_token_latency_seconds', type: 'histogram', buckets: [0.002, 0.004, 0.006, 0.008, 0.01, 0.015, 0.02, 0.025, 0.03, 0.035, 0.04, 0.06, 0.08, 0.1, 0.2, 0.4, 0.6, 0.8, 1, 2, 4, 6, 8] },
        requestLatency: { name: 'sglang:e2e_request_latency_seconds', type: 'histogram', buckets: [0.1, 0.2, 0.4, 0.6, 0.8, 1, 2, 4, 6, 8, 10, 20, 40, 60, 80, 100, 200, 400, 600, 1200, 1800, 2400] },
        // The scheduler's queueing time (each rank observes each request: a mean or a
        // quantile reads the same); no prefill or decode histogram.
        queueTime: { name: 'sglang:queue_time_seconds', type: 'histogram', buckets: [0, 0.1, 0.2, 0.5, 1, 2, 3, 4, 5, 10, 15, 20, 30, 40, 50, 60, 70, 80, 90, 100, 200, 300, 400, 500, 600, 700, 800, 900, 1000, 1200, 1400, 1600, 1800, 2000, 2500, 3000] },
        // The scheduler's gauges and counters, per rank: its waiting queue, the KV token
        // pool's used share (evictable radix-cache tokens count as free) and the requests it
        // retracted (its preemption) for want of KV cache.
        // Its scheduler labels every series with its tensor, pipeline and expert-parallel
        // ranks (and dp_rank, where data-parallel attention runs a batch per rank).
        local ranks = { tp_rank: '0', pp_rank: '0', moe_ep_rank: '0' },
        waiting: [read('sglang:num_queue_reqs', '', ranks)],
        kvCache: [read('sglang:token_usage', '', ranks)],
        preemptions: [read('sglang:num_retracted_requests_total', '', ranks) { type: 'counter' }],
        // The tokenizer's output tokens (counted as each request finishes: read over 5m, a
        // request that streams for minutes lands at its end) and the scheduler's running
        // batch, per rank (each rank of a tensor-parallel group reports the same batch).
        generated: [read('sglang:generation_tokens_total', '') { type: 'counter' }],
        running: [read('sglang:num_running_reqs', '', ranks)],
        // The HTTP middleware's response counter (exact status codes, no model label). On the
        // inference endpoints a 503 is a refusal on purpose: --max-queued-requests waiting, or
        // SGLANG_REQ_WAITING_TIMEOUT passed (a stream refused so ends in-stream, unseen here).
        requests: {
          local name = 'sglang:http_responses_total',
          local endpoints = 'endpoint=~"/v1/completions|/v1/chat/completions|/generate"',
          counters: { [name]: ['endpoint', 'status_code', 'method'] },
          served: [read(name, endpoints + ', status_code!="503"')],
          failed: [read(name, endpoints + ', status_code=~"5..", status_code!="503"')],
          rejected: [read(name, endpoints + ', status_code="503"')],
          local call = { endpoint: '/v1/chat/completions', method: 'POST' },
          example: { ok: outcome(name, call { status_code: '200' }), failed: outcome(name, call { status_code: '500' }), rejected: outcome(name, call { status_code: '503' }) },
        },
      },

      // NVIDIA Dynamo's OpenAI frontend (lib/llm/src/http/service/metrics.rs): every request
      // of the deployment enters here, whatever engine serves it behind (vLLM, SGLang,
      // TensorRT-LLM workers); the model label is `model`. List the engine behind it only
      // with a selector that leaves Dynamo's workers out, or each request counts twice.
      // Its ladders are log-spaced from DYN_METRICS_<TTFT|ITL|REQUEST_DURATION>_MIN to _MAX
      // in _COUNT buckets (0 first, two significant figures): the defaults below have no
      // 0.1 s inter-token bound, so a TPOT threshold of 0.1 s needs DYN_METRICS_ITL_MIN=0.001,
      // _MAX=1, _COUNT=13 (docs/catalog-guide.md) and the ladder here set to match.
      dynamo: {
        title: 'NVIDIA Dynamo (frontend)',
        modelLabel: 'model',
        labels: [],
        selector: '',
        endpoint: "/metrics on the frontend's HTTP port (8000)",
        enable: 'on by default',
        job: 'dynamo-frontend',
        port: 8000,
        example: {},
        wholeBound: '',
        timeToFirstToken: { name: 'dynamo_frontend_time_to_first_token_seconds', type: 'histogram', buckets: [0, 0.0022, 0.0047, 0.01, 0.022, 0.047, 0.1, 0.22, 0.47, 1, 2.2, 4.7, 10, 22, 48, 100, 220, 480] },
        interTokenLatency: { name: 'dynamo_frontend_inter_token_latency_seconds', type: 'histogram', buckets: [0, 0.0019, 0.0035, 0.0067, 0.013, 0.024, 0.045, 0.084, 0.16, 0.3, 0.56, 1.1, 2] },
        requestLatency: { name: 'dynamo_frontend_request_duration_seconds', type: 'histogram', buckets: [0, 2, 4, 8, 16, 32, 64, 130, 260, 510] },
        // Requests waiting for their first token; output tokens as they stream to clients; the
        // requests in flight (waiting ones included: the frontend does not see the batch).
        waiting: [read('dynamo_frontend_queued_requests', '')],
        generated: [read('dynamo_frontend_output_tokens_total', '') { type: 'counter' }],
        running: [read('dynamo_frontend_inflight_requests', '')],
        // One counter, status success or error, error_type saying which error: overload is
        // load shedding (all workers busy, HTTP 529 unless DYN_HTTP_OVERLOAD_STATUS_CODE);
        // cancelled the client's disconnect, validation and not_found the client's mistakes;
        // every other type (internal, unavailable, the timeouts, …) the server's failure.
        requests: {
          local name = 'dynamo_frontend_requests_total',
          counters: { [name]: ['model', 'endpoint', 'request_type', 'status', 'error_type'] },
          served: [read(name, 'error_type!="overload"')],
          failed: [read(name, 'status="error", error_type!~"overload|cancelled|validation|not_found"')],
          rejected: [read(name, 'error_type="overload"')],
          local call = { model: 'llama-3-8b', endpoint: 'chat_completions', request_type: 'stream' },
          example: { ok: outcome(name, call { status: 'success' }), failed: outcome(name, call { status: 'error', error_type: 'internal' }), rejected: outcome(name, call { status: 'error', error_type: 'overload' }) },
        },
      },

      // TensorRT-LLM's trtllm-serve (tensorrt_llm/metrics/collector.py): on /prometheus/metrics
      // of its OpenAI server (mounted with return_perf_metrics: true), every series with
      // model_name and engine_type (the backend: pytorch). It has no inter-token histogram:
      // its time per output token is one observation per request (the request's mean gap).
      trtllm: {
        title: 'TensorRT-LLM (trtllm-serve)',
        modelLabel: 'model_name',
        labels: ['engine_type'],
        selector: '',
        endpoint: '/prometheus/metrics on the OpenAI server port (8000)',
        enable: 'return_perf_metrics: true in the LLM API options',
        job: 'trtllm-serve',
        port: 8000,
        example: { engine_type: 'pytorch' },
        wholeBound: '.0',
        timeToFirstToken: { name: 'trtllm_time_to_first_token_seconds', type: 'histogram', buckets: [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 20, 40, 80, 160, 640, 2560] },
        interTokenLatency: { name: 'trtllm_time_per_output_token_seconds', type: 'histogram', buckets: [0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 20, 40, 80] },
        requestLatency: { name: 'trtllm_e2e_request_latency_seconds', type: 'histogram', buckets: [0.3, 0.5, 0.8, 1, 1.5, 2, 2.5, 5, 10, 15, 20, 30, 40, 50, 60, 120, 240, 480, 960, 1920, 7680] },
        local phase = [0.3, 0.5, 0.8, 1, 1.5, 2, 2.5, 5, 10, 15, 20, 30, 40, 50, 60, 120, 240, 480, 960, 1920, 7680],
        queueTime: { name: 'trtllm_request_queue_time_seconds', type: 'histogram', buckets: phase },
        prefillTime: { name: 'trtllm_request_prefill_time_seconds', type: 'histogram', buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 40, 80, 160, 640, 2560] },
        decodeTime: { name: 'trtllm_request_decode_time_seconds', type: 'histogram', buckets: phase },
        // Requests queued, not yet scheduled; the KV cache's used blocks over its blocks; the
        // requests paused for want of KV blocks, a level (0 under the default
        // GUARANTEED_NO_EVICT scheduler policy).
        waiting: [read('trtllm_num_requests_waiting', '')],
        kvCache: [read('trtllm_kv_cache_utilization', '')],
        preemptions: [read('trtllm_num_paused_requests', '') { type: 'gauge' }],
        // Output tokens (counted as each request finishes) and the requests being decoded.
        generated: [read('trtllm_generation_tokens_total', '') { type: 'counter' }],
        running: [read('trtllm_num_requests_running', '')],
        // Finished requests (by finished_reason) and HTTP errors (by http_code) are two
        // counters; it has no admission limit of its own, so every 5xx is a failure.
        requests: {
          local success = 'trtllm_request_success_total',
          local errors = 'trtllm_request_error_total',
          counters: { [success]: ['model_name', 'engine_type', 'finished_reason'], [errors]: ['model_name', 'engine_type', 'http_code'] },
          served: [read(success, ''), read(errors, '')],
          failed: [read(errors, 'http_code=~"5.."')],
          rejected: [],
          local model = { model_name: 'llama-3-8b', engine_type: 'pytorch' },
          example: { ok: outcome(success, model { finished_reason: 'stop' }), failed: outcome(errors, model { http_code: '500' }) },
        },
      },

      // Triton Inference Server (core src/metrics.cc): per-model counters and the pending
      // requests on its metrics port; no latency histogram the SLOs can read: request and
      // queue durations are cumulative µs counters, and the only histogram,
      // nv_inference_first_response_histogram_ms, is off unless --metrics-config
      // histogram_latencies=true, in ms, with bounds 100, 500, 2000 and 5000.
      triton: {
        title: 'Triton Inference Server',
        modelLabel: 'model',
        labels: ['version'],
        selector: '',
        endpoint: '/metrics on the metrics port (8002)',
        enable: 'on by default',
        job: 'triton',
        port: 8002,
        example: { version: '1' },
        wholeBound: '',
        // Requests received, not yet executing.
        waiting: [read('nv_inference_pending_request_count', '')],
        // Per model: successes, and failures by reason. REJECTED is the scheduler's queue
        // policy timing a request out (default_timeout_microseconds with REJECT): shedding on
        // purpose; CANCELED the client's; BACKEND and OTHER the server's failures. A request
        // refused because max_queue_size is reached is counted by neither.
        requests: {
          local success = 'nv_inference_request_success',
          local failure = 'nv_inference_request_failure',
          counters: { [success]: ['model', 'version'], [failure]: ['model', 'version', 'reason'] },
          served: [read(success, ''), read(failure, 'reason!="REJECTED"')],
          failed: [read(failure, 'reason=~"BACKEND|OTHER"')],
          rejected: [read(failure, 'reason="REJECTED"')],
          local model = { model: 'llama-3-8b', version: '1' },
          example: { ok: outcome(success, model), failed: outcome(failure, model { reason: 'BACKEND' }), rejected: outcome(failure, model { reason: 'REJECTED' }) },
        },
      },
    },

    // An engine's server in scenarios: its scrape target's labels, and where `serving` those
    // its model series carry (the model, under the engine's label, and its example labels).
    scenarioServer(engine, serving=false)::
      local p = inference.profiles[engine];
      { namespace: 'inference', pod: 'llm-0', job: p.job, instance: 'llm-0:' + p.port }
      + (if serving then { [p.modelLabel]: 'llama-3-8b' } + p.example else {}),

    // The quantities a profile may have, in the order the engine table lists them.
    quantities: ['timeToFirstToken', 'interTokenLatency', 'requestLatency'],
    // The phases of a request a profile may time, by the word the breakdown records use.
    phases: { queue: 'queueTime', prefill: 'prefillTime', decode: 'decodeTime' },

    // The reads of an engine's quantity, for the histogram builders: a plain name where the
    // engine needs no selector nor relabeling, else { name, selector, relabel }; its current
    // name before its deprecated one.
    readOf(engine, quantity)::
      local q = inference.profiles[engine][quantity];
      [inference.readAs(engine, q.name)] + (if std.get(q, 'deprecated') == null then [] else [inference.readAs(engine, q.deprecated)]),

    // A read of one of an engine's series by name, for the histogram builders: a plain name
    // where the engine needs no selector nor relabeling, else { name, selector, relabel }.
    readAs(engine, name)::
      local p = inference.profiles[engine];
      if p.selector == '' && p.modelLabel == inference.modelLabel then name
      else { name: name, selector: p.selector, relabel: if p.modelLabel == inference.modelLabel then null else { from: p.modelLabel, to: inference.modelLabel } },

    // One of an engine's series by name, selected with its profile's selector and `matchers`
    // (a selector's inside): for the rules that read one engine's own metrics by name.
    seriesOf(engine, name, matchers='')::
      local inside = e.inside([inference.profiles[engine].selector, matchers]);
      name + (if inside == '' then '' else '{' + inside + '}'),

    // The reads of a quantity across the engines served that have it.
    read(quantity):: std.flattenArrays([inference.readOf(engine, quantity) for engine in inference.having(quantity)]),

    // The engines served that have a quantity: a latency SLO or panel on a quantity none has
    // is not generated.
    having(quantity):: inference.showing([quantity]),
    // The engines served that have every one of `fields`.
    showing(fields):: [engine for engine in inference.engines if std.all([std.objectHas(inference.profiles[engine], f) for f in fields])],

    // The engines served that count their requests, and those that also tell rejections at
    // admission apart.
    answering:: inference.having('requests'),
    // The engines served whose throughput the records and alert read (output tokens over the
    // requests running), whose goodput they read (output tokens and both latency histograms),
    // and whether the release gate has an engine to compare (first tokens, or requests counted
    // per model).
    decoding:: inference.showing(['generated', 'running']),
    goodput:: inference.showing(['generated', 'timeToFirstToken', 'interTokenLatency']),
    gated:: inference.having('timeToFirstToken') != [] || inference.countingPerModel != [],

    // The engines served that count their requests per model (every counter labels the
    // model; SGLang's HTTP counter does not).
    countingPerModel:: [x for x in inference.answering if std.all([std.member(labels, inference.profiles[x].modelLabel) for labels in std.objectValues(inference.profiles[x].requests.counters)])],
    shedding:: [engine for engine in inference.answering if inference.profiles[engine].requests.rejected != []],

    // The series of a field (waiting, kvCache, preemptions, generated, running) of every served
    // engine that has it, in the profile's order: each read with its selector, the profile's
    // and `matchers`, `f` applied (a range function: 'deriv(%s[10m])', or a function of the
    // read giving one; '%s' for the instant value), without a sleeping engine's where `awake`
    // and the profile says how, relabelled to inference.modelLabel where the engine names the
    // model otherwise.
    gauges(field, f='%s', matchers='', awake=false)::
      [
        local inside = e.inside([r.selector, p.selector, matchers]);
        local format = if std.isFunction(f) then f(r) else f;
        local read = format % (r.name + (if inside == '' then '' else '{' + inside + '}'));
        local series = if awake && std.objectHasAll(p, 'awake') then p.awake(read) else read;
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
    // per second over w, summed by `by`: each engine's counters read with their selectors, the
    // profile's and `matchers` (a selector's inside, '' for none), relabelled to
    // inference.modelLabel where `by` keeps the model and the engine names it otherwise.
    requestRate(outcomes, engines, by, w, matchers='')::
      local reads = [
        r { selector: e.inside([r.selector, p.selector, matchers]), relabel: std.member(by, inference.modelLabel) && p.modelLabel != inference.modelLabel, from: p.modelLabel }
        for engine in engines
        for p in [inference.profiles[engine]]
        for o in outcomes
        for r in p.requests[o]
      ];
      e.fill(|||
        sum$(by) ($(rates))
      |||, {
        by: if by == [] then '' else ' by (' + std.join(', ', by) + ')',
        rates: std.join(' or ', [
          local rate = e.fill('rate($(name)$(selector)[$(window)])', { name: r.name, selector: if r.selector == '' then '' else '{' + r.selector + '}', window: w });
          if !r.relabel then rate else e.fill('label_replace($(rate), "$(to)", "$1", "$(from)", "(.*)")', { rate: rate, to: inference.modelLabel, from: r.from })
          for r in reads
        ]),
      }),
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
    for field in ['waiting', 'kvCache', 'preemptions', 'generated', 'running']
    for engine in $.inference.having(field)
    if engine != 'vllm'
    for p in [$.inference.profiles[engine]]
    for r in p[field]
  },
}
