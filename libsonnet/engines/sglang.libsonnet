// SGLang (python/sglang/srt/metrics/collector.py, observability/ in newer trees):
// metrics only with --enable-metrics, on the HTTP server's /metrics. The latency
// histograms are the tokenizer's: model_name and engine_type (unified, prefill,
// decode), no rank labels; the inter-token histogram counts tokens, as vLLM's does.
local engine = import '../lib/engine.libsonnet';
{
  inference+:: {
    local read = engine.read,
    local outcome = engine.outcome,
    profiles+: {
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
        interTokenLatency: {
          name: 'sglang:inter_token_latency_seconds',
          type: 'histogram',
          buckets: [0.002, 0.004, 0.006, 0.008, 0.01, 0.015, 0.02, 0.025, 0.03, 0.035, 0.04, 0.06, 0.08, 0.1, 0.2, 0.4, 0.6, 0.8, 1, 2, 4, 6, 8],
        },
        requestLatency: { name: 'sglang:e2e_request_latency_seconds', type: 'histogram', buckets: [0.1, 0.2, 0.4, 0.6, 0.8, 1, 2, 4, 6, 8, 10, 20, 40, 60, 80, 100, 200, 400, 600, 1200, 1800, 2400] },
        // The scheduler's queueing time (each rank observes each request: a mean or a
        // quantile reads the same); no prefill or decode histogram.
        queueTime: {
          name: 'sglang:queue_time_seconds',
          type: 'histogram',
          buckets: [
            0,
            0.1,
            0.2,
            0.5,
            1,
            2,
            3,
            4,
            5,
            10,
            15,
            20,
            30,
            40,
            50,
            60,
            70,
            80,
            90,
            100,
            200,
            300,
            400,
            500,
            600,
            700,
            800,
            900,
            1000,
            1200,
            1400,
            1600,
            1800,
            2000,
            2500,
            3000,
          ],
        },
        // The scheduler's gauges and counters, per rank: its waiting queue, the KV token
        // pool's used share (evictable radix-cache tokens count as free) and the requests it
        // retracted (its preemption) for want of KV cache.
        // Its scheduler labels every series with its tensor, pipeline and expert-parallel
        // ranks (and dp_rank, where data-parallel attention runs a batch per rank).
        local ranks = { tp_rank: '0', pp_rank: '0', moe_ep_rank: '0' },
        waiting: [read('sglang:num_queue_reqs', '', ranks)],
        // Prefill-decode disaggregation: the router sends each request to a prefill and a
        // decode server, and both count it and observe its end to end (the prefill server's
        // up to its KV transfer: sub-second); the decode server's are the client's. A prefill
        // server is told by its scheduler's engine_type (the tokenizer's series carry it only
        // in newer releases, the HTTP counter never): its requests and end-to-end latency are
        // not read. (It observes no first token and no inter-token gap.)
        roles: {
          prefill: { servers: read('sglang:num_queue_reqs', 'engine_type="prefill"', ranks), leaves: ['requestLatency', 'requests'], example: { engine_type: 'prefill' } },
        },
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
          example: {
            ok: outcome(name, call { status_code: '200' }),
            failed: outcome(name, call { status_code: '500' }),
            rejected: outcome(name, call { status_code: '503' }),
          },
        },
      },

    },
  },
}
