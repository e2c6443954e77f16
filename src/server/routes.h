#pragma once

// The admission endpoints on an HttpsServer:
//   POST /validate-jobset-x-k8s-io-v1alpha2-jobset   admission::answer_review, Hook::kValidating
//   POST /mutate-jobset-x-k8s-io-v1alpha2-jobset     admission::answer_review, Hook::kMutating
//   POST /validate-elastic-jobset-webhook-io-v1alpha1-replicatedjobscaler
//                                                    admission::answer_review, Hook::kValidatingScaler
// A 200 body is exactly the bytes of admission::handle_review for the request body (what
// `jobset-webhook review` prints, without its final newline). Protocol errors
// (check_request_head) are refused from the head, before the body is read, with error_body; a
// body that is not JSON is 400; a body that is still arriving when the request's ?timeout= passes,
// or that arrived after it, is 504 and is not judged. An exception out of a handler, e.g. while a
// review is judged (a bug, or memory exhausted), is answered 500
// {"code":500,"message":"internal error: ..."} for that request only, logged at error level and
// counted in controller_runtime_webhook_panics_total; it never ends the process and never allows
// anything.
// One access-log line per request, and the request counted in metrics (server_metrics.h).

#include "https_server.h"
#include "jobset_webhook/runtime/log.h"
#include "large_body_buffers.h"
#include "memory_budget.h"
#include "jobset_webhook/server/options.h"
#include "server_metrics.h"

namespace jobset_webhook::server {

// Every body is reserved in budget before it is read (memory_budget.h), and held there until its
// response is written: one larger than the budget is refused with 413, one that finds no room
// before its ?timeout= or the read timeout is answered 504, as a request out of time.
// Large bodies are read into large_bodies' kept buffers where it has one.
// Uses options.policy, options.max_request_bytes, options.read_timeout and options.answer_review.
// options, metrics, budget, large_bodies and log must outlive server.
void install_routes(HttpsServer& server, const ServerOptions& options, ServerMetrics& metrics,
                    MemoryBudget& budget, LargeBodyBuffers& large_bodies, const runtime::Log& log);

}  // namespace jobset_webhook::server
