#include "routes.h"

#include <algorithm>
#include <cstdint>
#include <exception>
#include <utility>

#include "jobset_webhook/admission/review.h"
#include "access_log.h"
#include "request_checks.h"
#include "tls_stream.h"

namespace jobset_webhook::server {
namespace {

using Clock = std::chrono::steady_clock;
using httplib::ContentReader;
using httplib::Request;
using httplib::Response;

void refuse(Response& res, const Failure& failure, ConnectionContext& conn) {
  res.status = http_status(failure);
  if (res.status == 405) res.set_header("Allow", "POST");
  res.set_content(error_body(failure), "application/json");
  conn.request.error = failure.message;
}

Failure larger_than_budget(std::size_t bytes, const MemoryBudget& budget) {
  return resource_exhausted(
      "request body of " + std::to_string(bytes) +
      " bytes is larger than the server's memory budget allows for one body (" +
      std::to_string(budget.ceiling(bytes)) + " bytes; see --max-inflight-bytes)");
}

// The head checks, run before any of the body is read. A refusal leaves the body unread, so the
// connection closes after the reply instead of reading the body as the next request. A request
// with Expect: 100-continue was checked before its 100 was sent, and is not checked again.
// A Content-Length the memory budget can never hold is refused here too, like one over
// max_request_bytes.
std::optional<Failure> check(const Request& req, std::size_t max_request_bytes,
                             MemoryBudget& budget, ConnectionContext& conn) {
  if (conn.request.checked) return std::nullopt;
  auto head = check_request_head(req, max_request_bytes);
  conn.request.checked = true;
  if (!head.ok()) {
    if (has_body(req)) conn.close_after_response = true;
    return head.failure();
  }
  conn.request.head = head.value();
  if (const auto timeout = head.value().timeout)
    conn.request.deadline = conn.request.started + *timeout;
  if (const auto length = head.value().content_length; length && !budget.could_fit(*length)) {
    conn.close_after_response = true;
    return larger_than_budget(*length, budget);
  }
  return std::nullopt;
}

Failure timed_out(const Request& req) {
  return deadline_exceeded("the request's timeout of " + req.get_param_value("timeout") +
                           " passed before it could be answered");
}

// Room in the memory budget for the body, before any of it is read: its Content-Length, or for a
// chunked body (which has no length to reserve by) the most it may grow to, as if it were that
// large. Reserving a chunked body bit by bit as it grows instead could leave several half-read
// bodies each holding part of the budget and waiting for more that only their own completion
// would free. The kube-apiserver always sends a Content-Length. The wait ends at the request's own
// deadline: its ?timeout=, or the server's read timeout from its first byte.
Result<MemoryBudget::Reservation> reserve_body(const Request& req, const ServerOptions& options,
                                               MemoryBudget& budget,
                                               const RequestContext& request) {
  const RequestHead& head = request.head;
  if (!head.has_body) return MemoryBudget::Reservation();
  const auto started = request.started;
  auto deadline = started + options.read_timeout;
  const auto own = request.deadline;
  if (own && *own < deadline) deadline = *own;
  const std::size_t bytes = head.content_length
                                ? static_cast<std::size_t>(*head.content_length)
                                : std::min(options.max_request_bytes, budget.ceiling(SIZE_MAX));
  auto reservation = budget.reserve(bytes, deadline);
  switch (reservation.outcome()) {
    case MemoryBudget::Outcome::kReserved: return reservation;
    case MemoryBudget::Outcome::kTooLarge: return larger_than_budget(bytes, budget);
    case MemoryBudget::Outcome::kTimedOut: break;
  }
  if (own && *own <= started + options.read_timeout) return timed_out(req);
  return deadline_exceeded("the server's request timeout of " +
                           std::to_string(options.read_timeout.count()) +
                           "ms passed before memory for the request's body was free");
}

// The whole body, never more than max_request_bytes of it (a chunked body has no length to check
// in advance), and none of it after the deadline.
Result<std::string> read_body(const Request& req, const RequestHead& head,
                              const ContentReader& reader, std::size_t max_request_bytes,
                              std::optional<Clock::time_point> deadline,
                              LargeBodyBuffers& large_bodies) {
  if (!head.has_body) return std::string();
  // Room for the padding too, so that the core parses the body where it is (the head checks have
  // already refused a Content-Length over the limit).
  std::string body = head.content_length
                         ? large_bodies.take(*head.content_length + admission::kInPlacePadding)
                         : std::string();
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
    return resource_exhausted("request body is larger than the limit of " +
                              std::to_string(max_request_bytes) + " bytes");
  }
  if (late) return timed_out(req);
  if (!complete) return invalid_argument("the request body ended early or arrived too slowly");
  // A chunked body, or one longer than announced, may have grown without the padding.
  if (body.capacity() - body.size() < admission::kInPlacePadding) {
    body.reserve(body.size() + admission::kInPlacePadding);
  }
  return body;
}

// An exception out of a handler is a bug (or memory ran out): that request gets a 500, never an
// AdmissionReview that could say allowed: true, and the connection and the process carry on.
void answer_internal_error(Response& res, ServerMetrics& metrics, const runtime::Log& log,
                           ConnectionContext& conn) {
  std::string what = "unknown exception";
  try {
    throw;
  } catch (const std::exception& e) {
    what = e.what();
  } catch (...) {
  }
  metrics.count_panic();
  log.error("internal error while judging a review; answered 500", {{"error", what}});
  res.headers.clear();
  res.body.clear();
  refuse(res, internal_error("internal error: " + what), conn);
}

void answer(const Request& req, Response& res, const ContentReader& reader, Hook hook,
            std::size_t route, const ServerOptions& options, ServerMetrics& metrics,
            MemoryBudget& budget, LargeBodyBuffers& large_bodies, ConnectionContext& conn) {
  const auto in_flight = metrics.in_flight(route);
  const auto deadline = conn.request.deadline;
  // Until the whole body is read, any way out of here (a refusal, an exception) leaves the rest
  // of it unread on the connection, which must then close.
  conn.close_after_response = true;
  // The head was checked before routing.
  const RequestHead& head = conn.request.head;
  auto reservation = reserve_body(req, options, budget, conn.request);
  if (!reservation.ok()) return refuse(res, reservation.failure(), conn);
  // A chunked body may not outgrow what it reserved.
  const std::size_t limit = head.content_length || !head.has_body ? options.max_request_bytes
                                                                  : reservation.value().bytes();
  // Held until the response is written and the request's buffers are freed.
  conn.request.reservation = std::move(reservation.value());
  auto body = read_body(req, head, reader, limit, deadline, large_bodies);
  if (!body.ok()) return refuse(res, body.failure(), conn);
  conn.close_after_response = false;
  conn.request.body_bytes = body.value().size();
  if (deadline && Clock::now() > *deadline) return refuse(res, timed_out(req), conn);
  const auto judging = Clock::now();
  auto reply = options.answer_review(body.value(), options.policy, hook);
  large_bodies.give_back(std::move(body.value()));
  if (!reply.ok()) return refuse(res, reply.failure(), conn);
  metrics.count_review(route, reply.value().summary, Clock::now() - judging);
  conn.request.review = std::move(reply.value().summary);
  res.status = 200;
  res.body = std::move(reply.value().body);
  res.set_header("Content-Type", "application/json");
}

}  // namespace

void install_routes(HttpsServer& server, const ServerOptions& options, ServerMetrics& metrics,
                    MemoryBudget& budget, LargeBodyBuffers& large_bodies, const runtime::Log& log) {
  const std::size_t max_request_bytes = options.max_request_bytes;
  // curl and others send Expect: 100-continue before a large body; refuse from the head there too,
  // so that the body is never sent.
  server.set_expect_100_continue_handler(HttpsServer::with_connection(
      [max_request_bytes, &budget](const Request& req, Response& res, ConnectionContext& conn) {
        const auto problem = check(req, max_request_bytes, budget, conn);
        if (!problem) return 100;
        refuse(res, *problem, conn);
        return http_status(*problem);
      }));
  server.set_pre_routing_handler(HttpsServer::with_connection(
      [max_request_bytes, &budget](const Request& req, Response& res, ConnectionContext& conn) {
        const auto problem = check(req, max_request_bytes, budget, conn);
        if (!problem) return httplib::Server::HandlerResponse::Unhandled;
        refuse(res, *problem, conn);
        return httplib::Server::HandlerResponse::Handled;
      }));
  for (const auto& [path, hook] :
       {std::pair{kValidatePath, Hook::kValidating}, std::pair{kMutatePath, Hook::kMutating},
        std::pair{kValidateScalerPath, Hook::kValidatingScaler}}) {
    const std::size_t route = ServerMetrics::route_of(path).value();
    server.Post(
        std::string(path),
        HttpsServer::with_connection([&options, &metrics, &budget, &large_bodies, &log, hook = hook,
                                      route](const Request& req, Response& res,
                                             const ContentReader& reader, ConnectionContext& conn) {
          try {
            answer(req, res, reader, hook, route, options, metrics, budget, large_bodies, conn);
          } catch (...) {
            answer_internal_error(res, metrics, log, conn);
          }
        }));
  }
  // httplib calls the logger once the response is written: the request's count and latency, and
  // the access-log line, built only when it is written. The request's state is reset before the
  // next request, so its review and error are moved into the line, not copied.
  server.set_logger(HttpsServer::with_connection(
      [&log, &metrics](const Request& req, const Response& res, ConnectionContext& conn) {
        // The response is complete: the client need not wait for its log line. A failure to send is
        // the connection's to notice (its flush after the request).
        if (conn.stream != nullptr) conn.stream->flush();
        const Clock::duration latency = Clock::now() - conn.request.started;
        if (const auto route = ServerMetrics::route_of(req.path)) {
          metrics.count_request(*route, res.status, latency);
        }
        if (!log.enabled(runtime::LogLevel::kInfo)) return;
        AccessRecord record;
        record.method = req.method;
        record.path = req.path;
        record.remote = req.remote_addr + ":" + std::to_string(req.remote_port);
        record.code = res.status;
        record.latency_us = std::chrono::duration_cast<std::chrono::microseconds>(latency).count();
        record.review = std::move(conn.request.review);
        record.error = std::move(conn.request.error);
        log_access(log, record);
      }));
}

}  // namespace jobset_webhook::server
