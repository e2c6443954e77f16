#include "jobset_webhook/field/error.h"

#include <unordered_set>

namespace jobset_webhook::field {

std::string_view type_name(ErrorType type) {
  switch (type) {
    case ErrorType::kNotFound: return "Not found";
    case ErrorType::kRequired: return "Required value";
    case ErrorType::kDuplicate: return "Duplicate value";
    case ErrorType::kInvalid: return "Invalid value";
    case ErrorType::kNotSupported: return "Unsupported value";
    case ErrorType::kForbidden: return "Forbidden";
    case ErrorType::kTooLong: return "Too long";
    case ErrorType::kTooMany: return "Too many";
    case ErrorType::kInternal: return "Internal error";
    case ErrorType::kTypeInvalid: return "Invalid value";
  }
  return "Invalid value";
}

std::string_view cause_reason(ErrorType type) {
  switch (type) {
    case ErrorType::kNotFound: return "FieldValueNotFound";
    case ErrorType::kRequired: return "FieldValueRequired";
    case ErrorType::kDuplicate: return "FieldValueDuplicate";
    case ErrorType::kInvalid: return "FieldValueInvalid";
    case ErrorType::kNotSupported: return "FieldValueNotSupported";
    case ErrorType::kForbidden: return "FieldValueForbidden";
    case ErrorType::kTooLong: return "FieldValueTooLong";
    case ErrorType::kTooMany: return "FieldValueTooMany";
    case ErrorType::kInternal: return "InternalError";
    case ErrorType::kTypeInvalid: return "FieldValueTypeInvalid";
  }
  return "FieldValueInvalid";
}

std::string Error::body() const {
  std::string s(type_name(type));
  // apimachinery prints no value for these types, whatever the error carries.
  const bool shows_value = type != ErrorType::kRequired && type != ErrorType::kForbidden &&
                           type != ErrorType::kTooLong && type != ErrorType::kInternal &&
                           !(bad_value && bad_value->is_omitted());
  if (shows_value) {
    s += ": ";
    s += bad_value ? bad_value->printed() : "null";
  }
  if (!detail.empty()) {
    s += ": ";
    s += detail;
  }
  return s;
}

std::string Error::to_string() const { return field + ": " + body(); }

Error invalid(const Path& path, BadValue value, std::string_view detail) {
  return {ErrorType::kInvalid, path.to_string(), std::move(value), std::string(detail)};
}

Error required(const Path& path, std::string_view detail) {
  return {ErrorType::kRequired, path.to_string(), std::nullopt, std::string(detail)};
}

Error forbidden(const Path& path, std::string_view detail) {
  return {ErrorType::kForbidden, path.to_string(), std::nullopt, std::string(detail)};
}

Error not_found(const Path& path, BadValue value) {
  return {ErrorType::kNotFound, path.to_string(), std::move(value), {}};
}

Error duplicate(const Path& path, BadValue value) {
  return {ErrorType::kDuplicate, path.to_string(), std::move(value), {}};
}

Error not_supported(const Path& path, BadValue value, const std::vector<std::string>& valid) {
  std::string detail;
  if (!valid.empty()) {
    detail = "supported values: ";
    for (std::size_t i = 0; i < valid.size(); ++i) {
      if (i > 0) detail += ", ";
      detail += go_quote(valid[i]);
    }
  }
  return {ErrorType::kNotSupported, path.to_string(), std::move(value), std::move(detail)};
}

Error too_long(const Path& path, std::int64_t max_bytes) {
  return {ErrorType::kTooLong, path.to_string(), std::nullopt,
          "may not be more than " + std::to_string(max_bytes) + " bytes"};
}

Error too_many(const Path& path, std::int64_t actual, std::int64_t max_items) {
  return {ErrorType::kTooMany, path.to_string(), BadValue::integer(actual),
          "must have at most " + std::to_string(max_items) + " items"};
}

Error internal_error(const Path& path, std::string_view detail) {
  return {ErrorType::kInternal, path.to_string(), std::nullopt, std::string(detail)};
}

ErrorList deduplicated(const ErrorList& errs) {
  ErrorList out;
  std::unordered_set<std::string> seen;
  for (const auto& e : errs) {
    if (seen.insert(e.to_string()).second) out.push_back(e);
  }
  return out;
}

std::string to_string(const ErrorList& errs) {
  // As deduplicated(), but each line is printed once: it is both what drops a duplicate and the
  // text. `unique` never reallocates (reserved), so the views in `seen` stay valid.
  std::vector<std::string> unique;
  unique.reserve(errs.size());
  std::unordered_set<std::string_view> seen;
  for (const auto& e : errs) {
    std::string line = e.to_string();
    if (seen.contains(line)) continue;
    unique.push_back(std::move(line));
    seen.insert(unique.back());
  }
  if (unique.empty()) return {};
  if (unique.size() == 1) return std::move(unique.front());
  std::string s = "[";
  const std::size_t shown = std::min(unique.size(), kMaxErrorsInMessage);
  for (std::size_t i = 0; i < shown; ++i) {
    if (i > 0) s += ", ";
    s += unique[i];
  }
  if (unique.size() > shown) s += ", and " + std::to_string(unique.size() - shown) + " more";
  s += "]";
  return s;
}

}  // namespace jobset_webhook::field
