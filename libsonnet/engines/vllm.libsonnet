// vLLM (vllm/v1/metrics/loggers.py): the reference engine; its profile as the rules read it.
local engine = import '../lib/engine.libsonnet';
local e = import '../lib/expr.libsonnet';
{
  inference+:: {
    local inference = self,
    local read = engine.read,
    local outcome = engine.outcome,
    profiles+: {
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
        interTokenLatency: {
          name: inference.interTokenLatency,
          type: 'histogram',
          buckets: inference.buckets.interTokenLatency,
          deprecated: inference.interTokenLatencyDeprecated,
        },
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
        // It sees every failure the server answers, a dead engine's included, but names no
        // model (vllm/entrypoints/serve/instrumentator/metrics.py: handler, method, status):
        // the request-error SLO, per namespace, reads it.
        requests: {
          local handlers = e.fill(|||
            handler=~"$(handlers)"
          |||, { handlers: inference.handlers }),
          counters: { [inference.requests]: ['handler', 'method', 'status'] },
          served: [read(inference.requests, handlers)],
          failed: [read(inference.requests, handlers + ', status="5xx"')],
          rejected: [],
          local call = { handler: '/v1/chat/completions', method: 'POST' },
          example: { ok: outcome(inference.requests, call { status: '2xx' }), failed: outcome(inference.requests, call { status: '5xx' }) },
        },
        // Per model, the engine counts each request it finishes by its reason
        // (vllm/v1/metrics/loggers.py, every reason's series from start, at 0):
        // finished_reason="error" (a request-level failure inside the engine, answered 500)
        // from 0.11.1; a request refused at admission, a client's abort and a dead engine's
        // 500s are not counted. The release gate compares a vLLM canary's errors by it: the
        // HTTP counter would merge a namespace's models.
        modelRequests: {
          local name = inference.requestsFinished,
          counters: { [name]: [inference.modelLabel, 'engine', 'finished_reason'] },
          served: [read(name, '')],
          failed: [read(name, 'finished_reason="error"')],
          rejected: [],
          example: { ok: outcome(name, { engine: '0', finished_reason: 'stop' }), failed: outcome(name, { engine: '0', finished_reason: 'error' }) },
        },
      },

    },
  },
}
