#pragma once

// What the HTTP layer refuses before a body is read or a review is judged: the protocol errors of
// `serve`, each with its status code and a message saying what is wrong.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <httplib.h>

#include "jobset_webhook/result.h"
#include "jobset_webhook/server/endpoints.h"

namespace jobset_webhook::server {

// What a request's head says about its body and how long it may take.
struct RequestHead {
  bool has_body = false;                            // a non-zero Content-Length, or chunked
  std::optional<std::uint64_t> content_length;      // as announced, when not chunked
  std::optional<std::chrono::nanoseconds> timeout;  // ?timeout=, at most 24 hours
};

// Checks a request's head, in this order, and returns the first problem (its code, then the
// HTTP status it is answered with, http_status in status.h):
//   kNotFound 404          a path other than the two webhook paths
//   kUnimplemented 405     a method other than POST
//   kUnimplemented 415     a Content-Encoding other than identity, or a Content-Type other than
//                          application/json
//   kInvalidArgument 400   a Content-Length that is not a number, or a Transfer-Encoding other
//                          than chunked
//   kResourceExhausted 413 a Content-Length above max_request_bytes
//   kInvalidArgument 400   a timeout query parameter that is not a positive duration ("10s")
// or, when the request may proceed, what its head says.
Result<RequestHead> check_request_head(const httplib::Request& req, std::size_t max_request_bytes);

// True when a body follows the head: a non-zero Content-Length or chunked encoding. For a head
// that check_request_head refused (its connection must then close instead of reading the body).
bool has_body(const httplib::Request& req);

// The short JSON body of an HTTP error, with the failure's HTTP status:
// {"code":415,"message":"..."}.
std::string error_body(const Failure& failure);

}  // namespace jobset_webhook::server
