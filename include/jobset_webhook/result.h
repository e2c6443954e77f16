#pragma once

// A value, or the Failure (status.h: a canonical code and a message) that stands in its place,
// in the manner of Abseil's `absl::StatusOr<T>`.
//
//   Result<Json> read(const std::string& path);
//   auto json = read(path);
//   if (!json.ok()) return json.failure();   // passed up unchanged, code and message

#include <utility>
#include <variant>

#include "jobset_webhook/status.h"

namespace jobset_webhook {

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
