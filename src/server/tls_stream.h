#pragma once

// One TLS connection as cpp-httplib's Stream, on a non-blocking socket so that every wait has a
// deadline: the handshake and each request (from its first byte) must arrive within the read
// timeout, and each write must finish within the write timeout. A client that stalls is cut off
// instead of holding a thread.
// Writes are gathered and sent by flush() (or before the stream next waits to read), so that a
// response's head and body leave in one TLS record and one system call.
// A request head (request line and header fields, up to its blank line) may be at most
// kMaxHeadBytes long and have at most kMaxHeadLines lines; past either, reads fail, and httplib
// answers 400 and the connection closes. httplib alone keeps every header line it reads, however
// many: one client could fill the memory that way within its read timeout.
// While a connection waits for its next request its buffers are freed: an idle connection holds
// its TLS session and its thread, nothing more (OpenSSL's record buffers go too,
// SSL_MODE_RELEASE_BUFFERS in tls_context.cpp).

#include <chrono>
#include <memory>
#include <string>
#include <string_view>

#include <httplib.h>
#include <openssl/ssl.h>

namespace jobset_webhook::server {

class TlsStream final : public httplib::Stream {
 public:
  using Clock = std::chrono::steady_clock;

  // Takes neither ssl nor sock: the caller frees and closes them after the stream is gone.
  TlsStream(SSL* ssl, int sock, std::chrono::milliseconds read_timeout,
            std::chrono::milliseconds write_timeout);

  // Completes the server side of the handshake within the read timeout. On failure, error() says
  // why; a client that sent plain HTTP has been told so in plain HTTP.
  bool accept();
  // error() after a handshake that failed for routine reasons (port probes, clients giving up).
  static constexpr std::string_view kClosedByClient = "connection closed by the client";
  static constexpr std::string_view kHandshakeTimedOut = "TLS handshake timed out";

  static constexpr size_t kMaxHeadBytes = 16 * 1024;
  static constexpr size_t kMaxHeadLines = 128;

  enum class Wait { kRequest, kClosed, kIdleTimeout, kWoken, kShed };
  // Waits until the next request's first bytes arrive (kRequest, and the read deadline starts),
  // the client closes, idle_timeout passes, or, while no request is pending, wake_fd becomes
  // readable (kWoken) or shed_fd does (kShed). A negative fd is not waited for.
  Wait wait_for_request(std::chrono::milliseconds idle_timeout, int wake_fd, int shed_fd = -1);

  // Sends the written bytes not yet sent, within the write timeout. False (and error() says why)
  // when they, or any earlier ones, could not be sent.
  bool flush();

  // Sends close_notify without waiting for the client's.
  void close_notify();

  const std::string& error() const { return error_; }

  bool is_readable() const override;
  bool is_writable() const override;
  ssize_t read(char* ptr, size_t size) override;
  ssize_t write(const char* ptr, size_t size) override;
  void get_remote_ip_and_port(std::string& ip, int& port) const override;
  void get_local_ip_and_port(std::string& ip, int& port) const override;
  int socket() const override { return sock_; }

 private:
  // Polls for what OpenSSL wants after ssl_error, until deadline. False when the deadline passes.
  bool wait_for_io(int ssl_error, Clock::time_point deadline) const;
  void reply_plain_http_refusal() const;
  // One SSL_read into ptr, waiting within the read deadline; as read().
  ssize_t read_tls(char* ptr, size_t size);
  // SSL_write of all of data within the write timeout.
  bool write_tls(std::string_view data);
  // Starts a request's head, whose bytes count against the head limits until its blank line.
  void begin_head();
  // Counts bytes given out from the read buffer; false once the head is too large.
  bool count_head(const char* data, size_t n);

  SSL* ssl_;
  int sock_;
  std::chrono::milliseconds read_timeout_;
  std::chrono::milliseconds write_timeout_;
  Clock::time_point read_deadline_;
  std::string error_;
  // Decrypted bytes not yet given to httplib. httplib reads request heads one byte at a time
  // (its own socket stream buffers; a custom stream must too): without this, every byte of a
  // head cost an SSL_read and an ERR_clear_error, a tenth of the CPU of a medium review.
  static constexpr size_t kReadBufferBytes = 16 * 1024;  // one TLS record
  static constexpr size_t kDirectReadBytes = 1024;
  std::unique_ptr<char[]> read_buffer_;
  size_t read_begin_ = 0;
  size_t read_end_ = 0;
  bool in_head_ = false;
  size_t head_bytes_ = 0;
  size_t head_lines_ = 0;
  unsigned head_tail_ = 0;  // the last bytes of the head so far, to find "\r\n\r\n"
  // Written, not yet sent: at most one TLS record's worth; larger writes go out directly.
  static constexpr size_t kWriteBufferBytes = 16 * 1024;
  std::string write_buffer_;
  bool write_failed_ = false;  // then nothing more is sent, and flush() says so every time
  // Asked for once: httplib asks for every request, two system calls each time.
  std::string remote_ip_, local_ip_;
  int remote_port_ = 0, local_port_ = 0;
};

}  // namespace jobset_webhook::server
