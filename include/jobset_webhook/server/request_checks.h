#pragma once

// What the HTTP layer refuses before a body is read or a review is judged: the protocol errors of
// `serve`, each with its status code and a message saying what is wrong.

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include <httplib.h>

#include "jobset_webhook/result.h"
#include "jobset_webhook/server/endpoints.h"

namespace jobset_webhook::server {

// Checks a request's head, in this order, and returns the first problem:
//   404 a path other than the two webhook paths
//   405 a method other than POST
//   415 a Content-Encoding other than identity, or a Content-Type other than application/json
//   400 a Content-Length that is not a number, or a Transfer-Encoding other than chunked
//   413 a Content-Length above max_request_bytes
//   400 a timeout query parameter that is not a positive duration ("10s")
// nullopt when the request may proceed.
std::optional<Failure> check_request_head(const httplib::Request& req,
                                          std::size_t max_request_bytes);

// The request's ?timeout= (already checked by check_request_head), at most 24 hours; nullopt when
// absent.
std::optional<std::chrono::nanoseconds> request_timeout(const httplib::Request& req);

// True when a body follows the head: a non-zero Content-Length or chunked encoding.
bool has_body(const httplib::Request& req);

// The short JSON body of an HTTP error: {"code":415,"message":"..."}.
std::string error_body(const Failure& failure);

}  // namespace jobset_webhook::server
