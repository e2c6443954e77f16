#pragma once

// Failures to process input (not JSON, not an AdmissionReview, too large) as values.
// They are not field errors: they end as `allowed: false` with a 4xx `status.code`, an HTTP
// error from the server, or exit code 2 from the CLI.

#include <string>
#include <utility>
#include <variant>

namespace jobset_webhook {

struct Failure {
  int code = 400;  // HTTP-style status: 400 bad input, 413 too large, 500 internal.
  std::string message;
};

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : state_(std::move(value)) {}            // NOLINT: implicit by design
  Result(Failure failure) : state_(std::move(failure)) {}  // NOLINT: implicit by design

  bool ok() const { return std::holds_alternative<T>(state_); }
  const T& value() const& { return std::get<T>(state_); }
  T& value() & { return std::get<T>(state_); }
  T&& value() && { return std::get<T>(std::move(state_)); }
  const Failure& failure() const { return std::get<Failure>(state_); }

 private:
  std::variant<T, Failure> state_;
};

}  // namespace jobset_webhook
