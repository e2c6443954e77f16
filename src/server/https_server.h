#pragma once

// cpp-httplib's SSLServer with our own connection loop. httplib 0.11 closes a keep-alive
// connection after 5 requests, polls idle connections in a 1 ms sleep loop, keeps no deadline on a
// request as a whole, and cannot close a connection after an error reply that left a body unread.
// This class replaces the per-connection part (SSLServer::process_and_close_socket: handshake,
// keep-alive loop) and keeps httplib's accept loop, request parsing, routing and response writing.
//
// - TLS comes from configure_tls_context: the certificate is re-read at every handshake.
// - Any number of requests per connection; an idle connection waits in poll() without cost and is
//   closed after idle_timeout. When max_connections are open and another one comes, an idle
//   connection that has answered at least one request is closed to make room for it (the memory
//   bound makes max_connections small enough for idle ones to fill it).
// - Each connection has a ConnectionContext that route callbacks receive as an argument (register
//   them through with_connection), to time the request, pass what the access log needs, and ask
//   for the connection to be closed.
// - begin_drain(): from then on every response says `Connection: close` and its connection closes
//   after it; new connections are still accepted and served the same way. close_idle(): idle
//   connections close at once, except one that has not yet received its first request (a client
//   dials only to send one, and closing under it would lose that request): it waits for it, within
//   the read timeout. Together with stop() (no new connections) and the accept loop's end (every
//   connection finished) this is a graceful shutdown.
//
// Everything here that depends on httplib's internals (the virtual process_and_close_socket, the
// members it reaches, the Stream TlsStream implements) is written against cpp-httplib 0.11.4, and
// https_server.cpp refuses to compile against another version.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include <httplib.h>

#include "jobset_webhook/admission/review.h"
#include "credential_reloader.h"
#include "jobset_webhook/runtime/connection_threads.h"
#include "jobset_webhook/runtime/log.h"
#include "memory_budget.h"
#include "jobset_webhook/server/options.h"
#include "request_checks.h"
#include "tls_context.h"

namespace jobset_webhook::server {

// What one request on a connection carries between httplib's callbacks (pre-routing, handler,
// post-routing, logger), which all run on the connection's thread.
struct RequestContext {
  std::chrono::steady_clock::time_point started;                  // first byte of the request
  std::optional<std::chrono::steady_clock::time_point> deadline;  // from ?timeout=
  bool checked = false;  // passed through the request checks; httplib itself answered otherwise
  RequestHead head;      // what the checks found, when they let the request proceed
  std::optional<admission::ReviewSummary> review;
  std::string error;           // why the request was refused, for the log
  std::size_t body_bytes = 0;  // of the body read, when it was read whole
  // The body's bytes in the memory budget: given back once the response is written and the
  // request's buffers are freed, before the connection waits for its next request.
  MemoryBudget::Reservation reservation;
};

class TlsStream;

struct ConnectionContext {
  RequestContext request;
  bool close_after_response = false;
  // The connection's stream, which holds a response until flushed: the access logger sends the
  // response before it writes the line.
  TlsStream* stream = nullptr;
};

class HttpsServer final : public httplib::SSLServer {
 public:
  // is_valid() is false when the TLS context could not be set up. reloader, client_names and log
  // must outlive the server.
  HttpsServer(const ServerOptions& options, const CredentialReloader& reloader,
              const ClientNameCheck& client_names, const runtime::Log& log);
  ~HttpsServer() override;

  // bind_to_port / bind_to_any_port with a full-size listen backlog. The bound port, or -1.
  int bind(const std::string& host, int port);

  // Every response from now on closes its connection (see above).
  void begin_drain();
  // Idle connections close now (see above). Implies begin_drain().
  void close_idle();

  // An httplib callback (handler, pre-routing, expect-100, logger) made from f, which takes the
  // callback's arguments and then the request's connection:
  //   server.Post(path, HttpsServer::with_connection(
  //       [](const Request& req, Response& res, const ContentReader& reader,
  //          ConnectionContext& conn) { ... }));
  // httplib's callbacks have no room for it; they all run on the connection's thread, which is
  // how the connection is found.
  template <typename F>
  static auto with_connection(F f) {
    // The return type names the call, so that the callback is callable with exactly the
    // arguments f takes before the connection: httplib picks among its overloads (Post with or
    // without a ContentReader) by what a callback accepts.
    return [f = std::move(f)](
               auto&&... args) -> decltype(f(std::forward<decltype(args)>(args)..., connection())) {
      return f(std::forward<decltype(args)>(args)..., connection());
    };
  }

  // Counts since begin_drain(), for the shutdown's log lines.
  struct DrainCounts {
    std::uint64_t requests_answered = 0;        // responses written while draining
    std::uint64_t connections_closed = 0;       // closed while draining, idle ones included
    std::uint64_t idle_connections_closed = 0;  // closed by close_idle() without a request
    std::uint64_t connections_open = 0;         // now
  };
  DrainCounts drain_counts() const;

 private:
  // The connection the calling thread serves.
  static ConnectionContext& connection();
  bool process_and_close_socket(socket_t sock) override;
  void serve_connection(SSL* ssl, int sock);
  // True when this idle connection should close to make room for a waiting one.
  bool take_shed();

  const ServerOptions options_;
  const runtime::Log& log_;
  std::atomic<bool> draining_{false};
  int wake_fd_ = -1;  // an eventfd, readable once close_idle() was called
  // A semaphore eventfd, one count for each connection that found every thread busy: each count
  // closes one idle connection.
  int shed_fd_ = -1;
  std::atomic<runtime::ConnectionThreads*> threads_{
      nullptr};  // httplib owns it; outlives every connection
  std::atomic<std::uint64_t> connections_open_{0};
  std::atomic<std::uint64_t> drain_requests_answered_{0};
  std::atomic<std::uint64_t> drain_connections_closed_{0};
  std::atomic<std::uint64_t> idle_connections_closed_{0};
};

}  // namespace jobset_webhook::server
