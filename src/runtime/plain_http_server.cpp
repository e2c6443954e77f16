#include "jobset_webhook/runtime/plain_http_server.h"

#include <sys/socket.h>

#include "jobset_webhook/runtime/connection_threads.h"

namespace jobset_webhook::runtime {
namespace {

// Probes and scrapes open a connection each; a few threads are plenty, and more would only be
// held by clients that keep connections open.
constexpr std::size_t kThreads = 16;

}  // namespace

PlainHttpServer::PlainHttpServer() {
  server_.new_task_queue = [] { return new ConnectionThreads(kThreads); };
  // Without httplib's SO_REUSEPORT default: a port in use must fail to bind.
  server_.set_socket_options([](socket_t sock) {
    const int yes = 1;
    ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  });
  server_.set_keep_alive_timeout(1);
}

PlainHttpServer::~PlainHttpServer() { stop(); }

int PlainHttpServer::start(const std::string& host, int port) {
  const int bound =
      port == 0 ? server_.bind_to_any_port(host) : (server_.bind_to_port(host, port) ? port : -1);
  if (bound < 0) return -1;
  thread_ = std::thread([this] {
    server_.listen_after_bind();
    listen_returned_ = true;
  });
  // stop() acts only on a running server, so return once the loop runs (or has already failed).
  while (!server_.is_running() && !listen_returned_) std::this_thread::yield();
  return bound;
}

void PlainHttpServer::stop() {
  if (!thread_.joinable()) return;
  server_.stop();
  thread_.join();
}

}  // namespace jobset_webhook::runtime
