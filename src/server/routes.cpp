#include "jobset_webhook/server/routes.h"

#include "jobset_webhook/admission/review.h"
#include "jobset_webhook/server/access_log.h"
#include "jobset_webhook/server/request_checks.h"

namespace jobset_webhook::server {
namespace {

using Clock = std::chrono::steady_clock;
using httplib::ContentReader;
using httplib::Request;
using httplib::Response;

void refuse(Response& res, const Failure& failure) {
  res.status = failure.code;
  if (failure.code == 405) res.set_header("Allow", "POST");
  res.set_content(error_body(failure), "application/json");
  if (auto* conn = current_connection()) conn->request.error = failure.message;
}

// The head checks, run before any of the body is read. A refusal leaves the body unread, so the
// connection closes after the reply instead of reading the body as the next request.
std::optional<Failure> check(const Request& req, std::size_t max_request_bytes) {
  auto problem = check_request_head(req, max_request_bytes);
  if (auto* conn = current_connection()) {
    conn->request.checked = true;
    if (problem && has_body(req)) conn->close_after_response = true;
    const auto timeout = problem ? std::nullopt : request_timeout(req);
    if (timeout) conn->request.deadline = conn->request.started + *timeout;
  }
  return problem;
}

Failure timed_out(const Request& req) {
  return Failure{504, "the request's timeout of " + req.get_param_value("timeout") +
                          " passed before it could be answered"};
}

// The whole body, never more than max_request_bytes of it (a chunked body has no length to check
// in advance), and none of it after the deadline.
Result<std::string> read_body(const Request& req, const ContentReader& reader,
                              std::size_t max_request_bytes,
                              std::optional<Clock::time_point> deadline) {
  std::string body;
  // A request with neither Content-Length nor chunked encoding has no body (RFC 9112 6.3).
  if (!has_body(req)) return body;
  if (req.has_header("Content-Length"))
    body.reserve(req.get_header_value<std::uint64_t>("Content-Length"));
  bool too_large = false, late = false;
  const bool complete = reader([&](const char* data, std::size_t n) {
    if (n > max_request_bytes - body.size()) {
      too_large = true;
      return false;
    }
    if (deadline && Clock::now() > *deadline) {
      late = true;
      return false;
    }
    body.append(data, n);
    return true;
  });
  if (too_large) {
    return Failure{413, "request body is larger than the limit of " +
                            std::to_string(max_request_bytes) + " bytes"};
  }
  if (late) return timed_out(req);
  if (!complete) return Failure{400, "the request body ended early or arrived too slowly"};
  return body;
}

void answer(const Request& req, Response& res, const ContentReader& reader, Hook hook,
            const Policy& policy, std::size_t max_request_bytes) {
  auto* conn = current_connection();
  const auto deadline = conn != nullptr ? conn->request.deadline : std::nullopt;
  auto body = read_body(req, reader, max_request_bytes, deadline);
  if (!body.ok()) {
    if (conn != nullptr) conn->close_after_response = true;  // the rest of the body is still unread
    return refuse(res, body.failure());
  }
  if (conn != nullptr) conn->request.body_bytes = body.value().size();
  if (deadline && Clock::now() > *deadline) return refuse(res, timed_out(req));
  auto reply = admission::answer_review(body.value(), policy, hook);
  if (!reply.ok()) return refuse(res, reply.failure());
  if (conn != nullptr) conn->request.review = reply.value().summary;
  res.status = 200;
  res.body = std::move(reply.value().body);
  res.set_header("Content-Type", "application/json");
}

}  // namespace

void install_routes(HttpsServer& server, const Policy& policy, std::size_t max_request_bytes,
                    const Log& log) {
  // curl and others send Expect: 100-continue before a large body; refuse from the head there too,
  // so that the body is never sent.
  server.set_expect_100_continue_handler([max_request_bytes](const Request& req, Response& res) {
    const auto problem = check(req, max_request_bytes);
    if (!problem) return 100;
    refuse(res, *problem);
    return problem->code;
  });
  server.set_pre_routing_handler([max_request_bytes](const Request& req, Response& res) {
    const auto problem = check(req, max_request_bytes);
    if (!problem) return httplib::Server::HandlerResponse::Unhandled;
    refuse(res, *problem);
    return httplib::Server::HandlerResponse::Handled;
  });
  server.Post(
      std::string(kValidatePath),
      [&policy, max_request_bytes](const Request& req, Response& res, const ContentReader& reader) {
        answer(req, res, reader, Hook::kValidating, policy, max_request_bytes);
      });
  server.Post(
      std::string(kMutatePath),
      [&policy, max_request_bytes](const Request& req, Response& res, const ContentReader& reader) {
        answer(req, res, reader, Hook::kMutating, policy, max_request_bytes);
      });
  server.set_logger([&log](const Request& req, const Response& res) {
    AccessRecord record;
    record.method = req.method;
    record.path = req.path;
    record.remote = req.remote_addr + ":" + std::to_string(req.remote_port);
    record.code = res.status;
    if (const auto* conn = current_connection()) {
      record.latency_us = std::chrono::duration_cast<std::chrono::microseconds>(
                              Clock::now() - conn->request.started)
                              .count();
      record.review = conn->request.review;
      record.error = conn->request.error;
    }
    log_access(log, record);
  });
}

}  // namespace jobset_webhook::server
