// NVIDIA Dynamo's OpenAI frontend (lib/llm/src/http/service/metrics.rs): every request
// of the deployment enters here, whatever engine serves it behind (vLLM, SGLang,
// TensorRT-LLM workers); the model label is `model`. Give the engine behind it, where it is
// listed too, the role lib/engine.libsonnet's behindFrontend, or each request counts twice.
// DYN_METRICS_PREFIX renames dynamo_frontend_*: set the names below to match.
// Its ladders are log-spaced from DYN_METRICS_<TTFT|ITL|REQUEST_DURATION>_MIN to _MAX
// in _COUNT buckets (0 first, two significant figures): the defaults below have no
// 0.1 s inter-token bound, so a TPOT threshold of 0.1 s needs DYN_METRICS_ITL_MIN=0.001,
// _MAX=1, _COUNT=13 (docs/catalog-guide.md) and the ladder here set to match.
local engine = import '../lib/engine.libsonnet';
{
  inference+:: {
    local read = engine.read,
    local outcome = engine.outcome,
    profiles+: {
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
        // requests in flight (waiting ones included: the frontend does not see the batch),
        // dynamo_frontend_active_requests from spring 2026, which deprecates the inflight gauge
        // (the same increments): read where a frontend does not send the new one.
        waiting: [read('dynamo_frontend_queued_requests', '')],
        generated: [read('dynamo_frontend_output_tokens_total', '') { type: 'counter' }],
        running: [read('dynamo_frontend_active_requests', ''), read('dynamo_frontend_inflight_requests', '')],
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
          example: {
            ok: outcome(name, call { status: 'success' }),
            failed: outcome(name, call { status: 'error', error_type: 'internal' }),
            rejected: outcome(name, call { status: 'error', error_type: 'overload' }),
          },
        },
      },

    },
  },
}
