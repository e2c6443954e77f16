#pragma once

// The admission endpoints on an HttpsServer:
//   POST /validate-jobset-x-k8s-io-v1alpha2-jobset   admission::answer_review, Hook::kValidating
//   POST /mutate-jobset-x-k8s-io-v1alpha2-jobset     admission::answer_review, Hook::kMutating
// A 200 body is exactly the bytes of admission::handle_review for the request body (what
// `jobset-webhook review` prints, without its final newline). Protocol errors
// (check_request_head) are refused from the head, before the body is read, with error_body; a
// body that is not JSON is 400; a body that is still arriving when the request's ?timeout= passes,
// or that arrived after it, is 504 and is not judged. One access-log line per request.

#include <cstddef>

#include "jobset_webhook/policy.h"
#include "jobset_webhook/server/https_server.h"
#include "jobset_webhook/server/log.h"

namespace jobset_webhook::server {

// policy and log must outlive server.
void install_routes(HttpsServer& server, const Policy& policy, std::size_t max_request_bytes,
                    const Log& log);

}  // namespace jobset_webhook::server
