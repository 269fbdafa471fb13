// Triton Inference Server (core src/metrics.cc): per-model counters and the pending
// requests on its metrics port; no latency histogram the SLOs can read: request and
// queue durations are cumulative µs counters, and the only histogram,
// nv_inference_first_response_histogram_ms, is off unless --metrics-config
// histogram_latencies=true, in ms, with bounds 100, 500, 2000 and 5000.
local engine = import '../lib/engine.libsonnet';
{
  inference+:: {
    local read = engine.read,
    local outcome = engine.outcome,
    profiles+: {
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
  },
}
