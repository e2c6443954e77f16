#include "https_server.h"

#include <fcntl.h>
#include <malloc.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string_view>

#include "jobset_webhook/admission/review.h"
#include "jobset_webhook/runtime/connection_threads.h"
#include "jobset_webhook/server/memory_sizing.h"
#include "tls_stream.h"

// process_and_close_socket, the members of httplib's Server it uses, and TlsStream follow
// cpp-httplib 0.11.4's internals, which change between releases: check them against the new
// version's before moving this line.
static_assert(std::string_view(CPPHTTPLIB_VERSION) == "0.11.4",
              "HttpsServer and TlsStream are written against cpp-httplib 0.11.4's internals");

namespace jobset_webhook::server {
namespace {

// The connection this thread is serving. httplib calls every callback of a request (pre-routing,
// handler, post-routing, logger) on the thread that called process_request, which is the
// connection's thread: a request without a usable head never gets its Request::ssl set, but still
// reaches its connection this way.
thread_local ConnectionContext* current = nullptr;

// httplib's default sets SO_REUSEPORT, with which a second server on the same port starts without
// error and silently shares the traffic. SO_REUSEADDR alone still allows a quick restart.
// A fixed receive buffer, inherited by every accepted connection: Linux would otherwise grow it
// with the traffic up to tcp_rmem's maximum (6 MiB), and a client pushing a body the server does
// not read yet (one waiting for room in the memory budget) fills it. That is kernel memory the Pod's
// cgroup is charged for. The kernel doubles the value for its bookkeeping: 64 KiB per connection at
// most, a window of 32 KiB, which a 1 MB body crosses in 32 round trips.
void listener_options(socket_t sock) {
  const int yes = 1;
  ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  const int receive_buffer = static_cast<int>(kSocketReceiveBufferBytes / 2);
  ::setsockopt(sock, SOL_SOCKET, SO_RCVBUF, &receive_buffer, sizeof receive_buffer);
}

// A large body (admission::kLargeBodyBytes) is parsed into a DOM and answered with several times
// its size in buffers. glibc keeps what a thread freed in that thread's arena for reuse and gives
// little of it back, so after a burst of large requests on many connection threads each arena
// would hold its peak: about 100 MiB resident after a few rounds of the hostile inputs of
// tests/server/memory_test, against 12 MiB before, enough to reach a Pod's memory limit. Trimming
// after such a request hands the freed pages back; it costs about a millisecond, next to the
// milliseconds it took to read and judge a body this size. Ordinary reviews never trigger it.
constexpr std::size_t kTrimAfterBodyBytes = admission::kLargeBodyBytes;

void prepare_connection_socket(int sock) {
  ::fcntl(sock, F_SETFL, ::fcntl(sock, F_GETFL) | O_NONBLOCK);
  // A response goes out with one write, but a 100 Continue, or a response longer than a TLS
  // record, is followed by more: none of it should wait for the client's delayed ACK.
  const int yes = 1;
  ::setsockopt(sock, IPPROTO_TCP, TCP_NODELAY, &yes, sizeof yes);
}

std::string remote_of(const TlsStream& stream) {
  std::string ip;
  int port = 0;
  stream.get_remote_ip_and_port(ip, port);
  return ip + ":" + std::to_string(port);
}

}  // namespace

ConnectionContext& HttpsServer::connection() {
  // Every callback of an HttpsServer runs on a connection's thread, inside serve_connection. A
  // callback anywhere else (a bug) gets a context of its own that nothing reads, not a crash.
  thread_local ConnectionContext unattached;
  return current != nullptr ? *current : unattached;
}

HttpsServer::HttpsServer(const ServerOptions& options, const CredentialReloader& reloader,
                         const ClientNameCheck& client_names, const runtime::Log& log)
    : httplib::SSLServer([&](SSL_CTX& ctx) {
        return configure_tls_context(ctx, options.min_tls_version, reloader,
                                     !options.tls.client_ca_file.empty(), client_names);
      }),
      options_(options),
      log_(log),
      wake_fd_(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)),
      shed_fd_(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK | EFD_SEMAPHORE)) {
  new_task_queue = [this, max = options.max_connections] {
    auto* threads = new runtime::ConnectionThreads(max, std::chrono::seconds(60), [this] {
      const std::uint64_t one = 1;
      if (shed_fd_ >= 0 && ::write(shed_fd_, &one, sizeof one) != sizeof one) {
        // Cannot fail this far from overflow; the new connection then waits for one to close.
      }
    });
    threads_ = threads;
    return threads;
  };
  set_socket_options(listener_options);
  set_payload_max_length(options.max_request_bytes);
  set_post_routing_handler(with_connection(
      [this](const httplib::Request&, httplib::Response& res, ConnectionContext& conn) {
        // HTTP/1.1 connections are persistent without it; httplib's version advertises its own
        // limit of 5 requests, which we do not have.
        res.headers.erase("Keep-Alive");
        // httplib answers by itself only requests it could not parse; what follows on the
        // connection cannot be trusted to start a request.
        if (!conn.request.checked || draining_) conn.close_after_response = true;
        if (conn.close_after_response && !res.has_header("Connection"))
          res.set_header("Connection", "close");
      }));
}

HttpsServer::~HttpsServer() {
  // httplib closes its listening socket only in stop(), which does nothing unless the accept loop
  // ran: a server that was bound but never served would keep its port.
  const socket_t listener = svr_sock_.exchange(INVALID_SOCKET);
  if (listener != INVALID_SOCKET) ::close(listener);
  if (wake_fd_ >= 0) ::close(wake_fd_);
  if (shed_fd_ >= 0) ::close(shed_fd_);
}

int HttpsServer::bind(const std::string& host, int port) {
  const int bound = port == 0 ? bind_to_any_port(host) : (bind_to_port(host, port) ? port : -1);
  // httplib listens with a backlog of 5: a burst of new connections (every apiserver reconnecting
  // after a restart) would see dropped SYNs and retry a second later. Linux lets listen() raise it.
  if (bound >= 0) ::listen(svr_sock_, SOMAXCONN);
  return bound;
}

void HttpsServer::begin_drain() { draining_ = true; }

void HttpsServer::close_idle() {
  draining_ = true;
  const std::uint64_t one = 1;
  if (wake_fd_ >= 0 && ::write(wake_fd_, &one, sizeof one) != sizeof one) {
    // Cannot fail for an eventfd counter this far from overflow; idle connections would then close
    // at their idle timeout instead.
  }
}

HttpsServer::DrainCounts HttpsServer::drain_counts() const {
  return DrainCounts{drain_requests_answered_.load(), drain_connections_closed_.load(),
                     idle_connections_closed_.load(), connections_open_.load()};
}

bool HttpsServer::take_shed() {
  std::uint64_t one = 0;
  runtime::ConnectionThreads* threads = threads_.load();
  if (threads == nullptr || threads->waiting() == 0) {
    // Room came without closing anyone: the counts are stale.
    while (::read(shed_fd_, &one, sizeof one) == sizeof one) {
    }
    return false;
  }
  return ::read(shed_fd_, &one, sizeof one) == sizeof one;
}

bool HttpsServer::process_and_close_socket(socket_t sock) {
  prepare_connection_socket(sock);
  if (SSL* ssl = SSL_new(ssl_context())) {
    if (SSL_set_fd(ssl, sock) == 1) serve_connection(ssl, sock);
    SSL_free(ssl);
  }
  ::close(sock);
  return true;
}

void HttpsServer::serve_connection(SSL* ssl, int sock) {
  TlsStream stream(ssl, sock, options_.read_timeout, options_.write_timeout);
  const std::string remote = remote_of(stream);  // while the client is still connected
  if (!stream.accept()) {
    // Port probes and clients that give up are routine; refusals say something about a client.
    const bool routine = stream.error() == TlsStream::kClosedByClient ||
                         stream.error() == TlsStream::kHandshakeTimedOut;
    log_.write(routine ? runtime::LogLevel::kDebug : runtime::LogLevel::kInfo,
               "TLS handshake failed", {{"remote", remote}, {"error", stream.error()}});
    return;
  }
  ConnectionContext conn;
  conn.stream = &stream;
  current = &conn;
  ++connections_open_;
  bool clean = true;  // ends with our close_notify: not after an error or the client's close
  std::uint64_t answered = 0;
  for (;;) {
    // A connection that has not yet sent its first request is not shed: its client dialled to
    // send one.
    const auto wait_idle = [&] {
      return stream.wait_for_request(options_.idle_timeout, wake_fd_, answered > 0 ? shed_fd_ : -1);
    };
    auto wait = wait_idle();
    while (wait == TlsStream::Wait::kShed) {
      if (take_shed()) {
        log_.write(runtime::LogLevel::kDebug, "idle connection closed to make room for a new one",
                   {{"remote", remote}, {"maxConnections", options_.max_connections}});
        break;
      }
      wait = wait_idle();
    }
    if (wait == TlsStream::Wait::kWoken && answered == 0) {
      // A client that just dialled is about to send its request (in a drain, Go's transport dials
      // again after each `Connection: close`); closing now would lose it.
      wait = stream.wait_for_request(options_.read_timeout, -1);
    }
    if (wait != TlsStream::Wait::kRequest) {
      clean = wait != TlsStream::Wait::kClosed;  // shed: closed with close_notify
      if (wait == TlsStream::Wait::kWoken) ++idle_connections_closed_;
      break;
    }
    conn.request = RequestContext{};
    conn.request.started = std::chrono::steady_clock::now();
    // Counted as answered during the drain only when begun after the signal: a response the
    // client already had when the signal came counts before it.
    const bool begun_draining = draining_;
    bool client_closed = false;
    bool written = false;
    try {
      written = process_request(stream, false, client_closed,
                                [ssl](httplib::Request& req) { req.ssl = ssl; });
    } catch (...) {
      // httplib turns a handler's exception into a 500; anything escaping it ends the connection.
    }
    // Usually sent already, by the access logger.
    const bool sent = stream.flush();
    // Here the request's buffers are freed: httplib's Request and Response live inside
    // process_request.
    if (conn.request.body_bytes >= kTrimAfterBodyBytes) ::malloc_trim(0);
    conn.request.reservation.release();
    if (!written || !sent) {
      clean = false;
      break;
    }
    ++answered;
    if (begun_draining) ++drain_requests_answered_;
    if (client_closed || conn.close_after_response || !conn.request.checked) break;
  }
  current = nullptr;
  if (clean) stream.close_notify();
  if (draining_) ++drain_connections_closed_;
  --connections_open_;
}

}  // namespace jobset_webhook::server
