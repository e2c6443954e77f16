#include "tls_stream.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <string_view>

#include <openssl/err.h>

namespace jobset_webhook::server {
namespace {

using std::chrono::milliseconds;

int millis_until(TlsStream::Clock::time_point deadline) {
  const auto left = std::chrono::ceil<milliseconds>(deadline - TlsStream::Clock::now()).count();
  return left <= 0 ? 0 : static_cast<int>(std::min<long long>(left, INT_MAX));
}

// poll() that resumes after signals until deadline; returns poll's result (0 on timeout).
int poll_until(pollfd* fds, nfds_t count, TlsStream::Clock::time_point deadline) {
  for (;;) {
    const int r = ::poll(fds, count, millis_until(deadline));
    if (r >= 0 || errno != EINTR) return r;
  }
}

std::string last_openssl_reason(int ssl_error) {
  unsigned long last = 0;
  while (const unsigned long e = ERR_get_error()) last = e;
  if (ERR_GET_LIB(last) == ERR_LIB_SSL &&
      ERR_GET_REASON(last) == SSL_R_UNEXPECTED_EOF_WHILE_READING) {
    return std::string(TlsStream::kClosedByClient);
  }
  if (last != 0) {
    const char* reason = ERR_reason_error_string(last);
    return reason != nullptr ? reason : "TLS error";
  }
  if (ssl_error == SSL_ERROR_SYSCALL || ssl_error == SSL_ERROR_ZERO_RETURN)
    return std::string(TlsStream::kClosedByClient);
  return "TLS error";
}

// OpenSSL tells why a call failed through the thread's error queue, which must be empty before
// the call. Emptying it costs about a thousand instructions even when there is nothing in it (32
// frees, for every slot's file and function names), and a request makes a dozen calls: look first.
void empty_error_queue() {
  if (ERR_peek_error() != 0) ERR_clear_error();
}

void address_of(const sockaddr_storage& addr, std::string& ip, int& port) {
  char text[INET6_ADDRSTRLEN] = "";
  if (addr.ss_family == AF_INET) {
    const auto& a = reinterpret_cast<const sockaddr_in&>(addr);
    inet_ntop(AF_INET, &a.sin_addr, text, sizeof text);
    port = ntohs(a.sin_port);
  } else if (addr.ss_family == AF_INET6) {
    const auto& a = reinterpret_cast<const sockaddr_in6&>(addr);
    inet_ntop(AF_INET6, &a.sin6_addr, text, sizeof text);
    port = ntohs(a.sin6_port);
  }
  ip = text;
}

}  // namespace

TlsStream::TlsStream(SSL* ssl, int sock, milliseconds read_timeout, milliseconds write_timeout)
    : ssl_(ssl), sock_(sock), read_timeout_(read_timeout), write_timeout_(write_timeout) {
  sockaddr_storage addr{};
  socklen_t len = sizeof addr;
  if (::getpeername(sock_, reinterpret_cast<sockaddr*>(&addr), &len) == 0)
    address_of(addr, remote_ip_, remote_port_);
  len = sizeof addr;
  if (::getsockname(sock_, reinterpret_cast<sockaddr*>(&addr), &len) == 0)
    address_of(addr, local_ip_, local_port_);
}

bool TlsStream::wait_for_io(int ssl_error, Clock::time_point deadline) const {
  pollfd fd{sock_, static_cast<short>(ssl_error == SSL_ERROR_WANT_WRITE ? POLLOUT : POLLIN), 0};
  return poll_until(&fd, 1, deadline) > 0;
}

bool TlsStream::accept() {
  read_deadline_ = Clock::now() + read_timeout_;
  for (;;) {
    empty_error_queue();
    const int r = SSL_accept(ssl_);
    if (r == 1) return true;
    const int e = SSL_get_error(ssl_, r);
    if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) {
      if (wait_for_io(e, read_deadline_)) continue;
      error_ = kHandshakeTimedOut;
      return false;
    }
    const unsigned long first = ERR_peek_error();
    const bool plain_http =
        ERR_GET_LIB(first) == ERR_LIB_SSL && ERR_GET_REASON(first) == SSL_R_HTTP_REQUEST;
    error_ = last_openssl_reason(e);
    if (plain_http) {
      error_ = "the client sent plain HTTP";
      reply_plain_http_refusal();
    }
    return false;
  }
}

// As Go's net/http does, so that `curl http://...` explains itself instead of failing silently.
void TlsStream::reply_plain_http_refusal() const {
  static constexpr std::string_view kReply =
      "HTTP/1.0 400 Bad Request\r\n"
      "Content-Type: text/plain; charset=utf-8\r\n"
      "Connection: close\r\n"
      "\r\n"
      "Client sent an HTTP request to an HTTPS server.\n";
  if (::send(sock_, kReply.data(), kReply.size(), MSG_NOSIGNAL) < 0) return;
  ::shutdown(sock_, SHUT_WR);
  // Read what the client already sent: closing a socket with unread data resets the connection,
  // which can destroy the reply before the client reads it.
  char discard[4096];
  while (::recv(sock_, discard, sizeof discard, MSG_DONTWAIT) > 0) {
  }
}

void TlsStream::begin_head() {
  read_deadline_ = Clock::now() + read_timeout_;
  in_head_ = true;
  head_bytes_ = 0;
  head_lines_ = 0;
  head_tail_ = 0;
}

bool TlsStream::count_head(const char* data, size_t n) {
  for (size_t i = 0; i < n && in_head_; ++i) {
    ++head_bytes_;
    head_tail_ = (head_tail_ << 8) | static_cast<unsigned char>(data[i]);
    if ((head_tail_ & 0xffff) == 0x0d0a) ++head_lines_;
    if (head_tail_ == 0x0d0a0d0a) in_head_ = false;
  }
  if (!in_head_) return true;
  if (head_bytes_ <= kMaxHeadBytes && head_lines_ <= kMaxHeadLines) return true;
  error_ = "request head longer than " + std::to_string(kMaxHeadBytes) + " bytes or " +
           std::to_string(kMaxHeadLines) + " lines";
  return false;
}

TlsStream::Wait TlsStream::wait_for_request(milliseconds idle_timeout, int wake_fd, int shed_fd) {
  const auto idle_deadline = Clock::now() + idle_timeout;
  if (read_begin_ < read_end_) {  // the next request arrived with the previous one
    begin_head();
    return Wait::kRequest;
  }
  // Idle from here: the buffers are allocated again by the next request.
  read_buffer_.reset();
  if (write_buffer_.empty()) std::string().swap(write_buffer_);
  // With nothing buffered in OpenSSL, a peek would only find the socket empty: wait first.
  short events = SSL_has_pending(ssl_) ? 0 : POLLIN;
  for (;;) {
    if (events != 0) {
      // poll() skips entries with a negative fd.
      pollfd fds[3] = {{sock_, events, 0}, {wake_fd, POLLIN, 0}, {shed_fd, POLLIN, 0}};
      const int n = poll_until(fds, 3, idle_deadline);
      if (n < 0) return Wait::kClosed;
      if (n == 0) return Wait::kIdleTimeout;
      if (fds[0].revents == 0) return fds[1].revents != 0 ? Wait::kWoken : Wait::kShed;
    }
    // Peeking processes whatever TLS records have arrived, so the answer is about application
    // data: bytes OpenSSL has already buffered count, a TLS message without data (a key update)
    // does not, and the client's close_notify or EOF ends the wait.
    char byte;
    empty_error_queue();
    const int r = SSL_peek(ssl_, &byte, 1);
    if (r > 0) {
      begin_head();
      return Wait::kRequest;
    }
    const int e = SSL_get_error(ssl_, r);
    if (e != SSL_ERROR_WANT_READ && e != SSL_ERROR_WANT_WRITE) {
      ERR_clear_error();
      return Wait::kClosed;
    }
    events = e == SSL_ERROR_WANT_WRITE ? POLLOUT : POLLIN;
  }
}

void TlsStream::close_notify() {
  ERR_clear_error();
  SSL_shutdown(ssl_);
  ERR_clear_error();
}

bool TlsStream::is_readable() const {
  // SSL_has_pending, not SSL_pending: a record received but not yet decrypted counts too.
  if (read_begin_ < read_end_ || SSL_has_pending(ssl_)) return true;
  pollfd fd{sock_, POLLIN, 0};
  return poll_until(&fd, 1, read_deadline_) > 0;
}

bool TlsStream::is_writable() const {
  pollfd fd{sock_, POLLOUT, 0};
  return poll_until(&fd, 1, Clock::now() + write_timeout_) > 0;
}

ssize_t TlsStream::read(char* ptr, size_t size) {
  if (size == 0) return 0;
  if (read_begin_ == read_end_) {
    // Body reads (httplib asks for 4 KiB at a time) go straight to the caller, so that a body is
    // not copied once more on its way; head reads (a byte at a time) fill the buffer.
    if (size >= kDirectReadBytes) {
      const ssize_t n = read_tls(ptr, size);
      if (n > 0 && in_head_ && !count_head(ptr, static_cast<size_t>(n))) return -1;
      return n;
    }
    if (!read_buffer_) read_buffer_ = std::make_unique<char[]>(kReadBufferBytes);
    const ssize_t n = read_tls(read_buffer_.get(), kReadBufferBytes);
    if (n <= 0) return n;
    read_begin_ = 0;
    read_end_ = static_cast<size_t>(n);
  }
  const size_t n = std::min(size, read_end_ - read_begin_);
  std::memcpy(ptr, read_buffer_.get() + read_begin_, n);
  read_begin_ += n;
  if (in_head_ && !count_head(ptr, n)) return -1;
  return static_cast<ssize_t>(n);
}

ssize_t TlsStream::read_tls(char* ptr, size_t size) {
  // The peer may be waiting for what was written before it sends more (100 Continue).
  if (!flush()) return -1;
  for (;;) {
    empty_error_queue();
    const int r = SSL_read(ssl_, ptr, static_cast<int>(std::min<size_t>(size, INT_MAX)));
    if (r > 0) return r;
    const int e = SSL_get_error(ssl_, r);
    if (e == SSL_ERROR_ZERO_RETURN) return 0;
    if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) {
      if (wait_for_io(e, read_deadline_)) continue;
      error_ = "request not received within the read timeout";
      return -1;
    }
    error_ = last_openssl_reason(e);
    return -1;
  }
}

ssize_t TlsStream::write(const char* ptr, size_t size) {
  if (write_failed_) return -1;
  if (size == 0) return 0;
  if (write_buffer_.size() + size <= kWriteBufferBytes) {
    write_buffer_.append(ptr, size);
    return static_cast<ssize_t>(size);
  }
  if (!flush() || !write_tls(std::string_view(ptr, size))) return -1;
  return static_cast<ssize_t>(size);
}

bool TlsStream::flush() {
  if (write_buffer_.empty()) return !write_failed_;
  const bool sent = write_tls(write_buffer_);
  write_buffer_.clear();
  return sent;
}

bool TlsStream::write_tls(std::string_view data) {
  const auto deadline = Clock::now() + write_timeout_;
  while (!data.empty()) {
    empty_error_queue();
    const int n = static_cast<int>(std::min<size_t>(data.size(), INT_MAX));
    const int r = SSL_write(ssl_, data.data(), n);
    if (r > 0) {
      data.remove_prefix(static_cast<size_t>(r));
      continue;
    }
    const int e = SSL_get_error(ssl_, r);
    if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) {
      if (wait_for_io(e, deadline)) continue;
      error_ = "response not sent within the write timeout";
      write_failed_ = true;
      return false;
    }
    error_ = last_openssl_reason(e);
    write_failed_ = true;
    return false;
  }
  return true;
}

void TlsStream::get_remote_ip_and_port(std::string& ip, int& port) const {
  ip = remote_ip_;
  port = remote_port_;
}

void TlsStream::get_local_ip_and_port(std::string& ip, int& port) const {
  ip = local_ip_;
  port = local_port_;
}

}  // namespace jobset_webhook::server
