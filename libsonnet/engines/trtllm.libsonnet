// TensorRT-LLM's trtllm-serve (tensorrt_llm/metrics/collector.py): on /prometheus/metrics
// of its OpenAI server (mounted with return_perf_metrics: true), every series with
// model_name and engine_type (the backend: pytorch). It has no inter-token histogram:
// its time per output token is one observation per request (the request's mean gap).
// Releases whose openai_server.py writes model_name="undefined" need the label set at
// scrape time (docs/catalog-guide.md, Where engine releases differ).
local engine = import '../lib/engine.libsonnet';
{
  inference+:: {
    local read = engine.read,
    local outcome = engine.outcome,
    profiles+: {
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
        timeToFirstToken: {
          name: 'trtllm_time_to_first_token_seconds',
          type: 'histogram',
          buckets: [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 20, 40, 80, 160, 640, 2560],
        },
        interTokenLatency: { name: 'trtllm_time_per_output_token_seconds', type: 'histogram', buckets: [0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 20, 40, 80] },
        requestLatency: { name: 'trtllm_e2e_request_latency_seconds', type: 'histogram', buckets: [0.3, 0.5, 0.8, 1, 1.5, 2, 2.5, 5, 10, 15, 20, 30, 40, 50, 60, 120, 240, 480, 960, 1920, 7680] },
        local phase = [0.3, 0.5, 0.8, 1, 1.5, 2, 2.5, 5, 10, 15, 20, 30, 40, 50, 60, 120, 240, 480, 960, 1920, 7680],
        queueTime: { name: 'trtllm_request_queue_time_seconds', type: 'histogram', buckets: phase },
        prefillTime: { name: 'trtllm_request_prefill_time_seconds', type: 'histogram', buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 40, 80, 160, 640, 2560] },
        decodeTime: { name: 'trtllm_request_decode_time_seconds', type: 'histogram', buckets: phase },
        // The settings beyond `enable` that switch fields on: the iteration statistics (the
        // PyTorch backend's default is off) set the queue, running, KV-cache and paused gauges,
        // updated as requests complete (tensorrt_llm/metrics/collector.py).
        switches: { enable_iter_perf_stats: { set: 'enable_iter_perf_stats: true in the LLM API options', fields: ['waiting', 'kvCache', 'preemptions', 'running'] } },
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

    },
  },
}
