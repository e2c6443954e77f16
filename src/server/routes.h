#pragma once

// The admission endpoints on an HttpsServer:
//   POST /validate-jobset-x-k8s-io-v1alpha2-jobset   admission::answer_review, Hook::kValidating
//   POST /mutate-jobset-x-k8s-io-v1alpha2-jobset     admission::answer_review, Hook::kMutating
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
#include "jobset_webhook/server/log.h"
#include "jobset_webhook/server/options.h"
#include "server_metrics.h"

namespace jobset_webhook::server {

// Uses options.policy, options.max_request_bytes and options.answer_review. options, metrics and
// log must outlive server.
void install_routes(HttpsServer& server, const ServerOptions& options, ServerMetrics& metrics,
                    const Log& log);

}  // namespace jobset_webhook::server
