#pragma once

// Field errors as data, after apimachinery's validation/field package: the same types, the same
// builders, and the same printed form, so that our messages read exactly like Kubernetes' own:
//   spec.replicatedJobs[1].template.spec.template.spec.containers[0].image: Invalid value: "bash:5.2": field is immutable
//   spec.managedBy: Too long: may not be more than 63 bytes

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "jobset_webhook/field/path.h"
#include "jobset_webhook/field/value.h"

namespace jobset_webhook::field {

enum class ErrorType {
  kNotFound,
  kRequired,
  kDuplicate,
  kInvalid,
  kNotSupported,
  kForbidden,
  kTooLong,
  kTooMany,
  kInternal,
  kTypeInvalid,
};

// "Invalid value", "Required value", ... as Go's ErrorType.String().
std::string_view type_name(ErrorType type);
// The StatusCause reason: "FieldValueInvalid", "FieldValueRequired", ..., "InternalError".
std::string_view cause_reason(ErrorType type);

struct Error {
  ErrorType type = ErrorType::kInvalid;
  std::string field;                  // printed path; "<nil>" when the error names no field
  std::optional<BadValue> bad_value;  // printed only by the types that show a value
  std::string detail;
  // For an error that names no field (upstream's plain errors, printed "<nil>"), or names it in
  // another notation (the API server's schema errors, map keys as fields): the path of the field
  // that caused it, in apimachinery's form, so that a report can point there. Never printed, never sent in a
  // response, and not part of equality: the error is upstream's, this only says where it comes
  // from. Empty when unknown.
  std::string origin = {};

  // "<Type>[: <value>][: <detail>]": the message of a StatusCause.
  std::string body() const;
  // "<field>: <body>": one line of a rejection.
  std::string to_string() const;
  bool operator==(const Error& other) const {
    return type == other.type && field == other.field && bad_value == other.bad_value &&
           detail == other.detail;
  }
};

using ErrorList = std::vector<Error>;

Error invalid(const Path& path, BadValue value, std::string_view detail);
Error required(const Path& path, std::string_view detail);
Error forbidden(const Path& path, std::string_view detail);
Error not_found(const Path& path, BadValue value);
Error duplicate(const Path& path, BadValue value);
// detail "supported values: "a", "b"", in the order given.
Error not_supported(const Path& path, BadValue value, const std::vector<std::string>& valid);
// detail "may not be more than N bytes".
Error too_long(const Path& path, std::int64_t max_bytes);
// value is the actual count; detail "must have at most N items".
Error too_many(const Path& path, std::int64_t actual, std::int64_t max_items);
Error internal_error(const Path& path, std::string_view detail);

// How many errors a rejection message spells out before it ends in "and N more".
inline constexpr std::size_t kMaxErrorsInMessage = 10;

// The errors with exact duplicates dropped, order kept (apimachinery's ToAggregate).
ErrorList deduplicated(const ErrorList& errs);

// The aggregate message: one error alone, several as "[e1, e2]"; past kMaxErrorsInMessage,
// "[e1, ..., e10, and 3 more]". Duplicates are dropped first. Empty for an empty list.
std::string to_string(const ErrorList& errs);

}  // namespace jobset_webhook::field
