#include "jobset_webhook/validation/notice_annotation.h"

#include <string>

#include "jobset_webhook/scale_down_notice.h"

namespace jobset_webhook::validation {

field::ErrorList validate_notice_annotation(MaybeJson old_js, JsonView new_js) {
  const auto annotation = [](MaybeJson js) {
    return member(member(member(js, "metadata"), "annotations"), kNoticeSecondsAnnotation);
  };
  const MaybeJson value = annotation(new_js);
  if (!value) return {};
  // The API server decodes annotations as strings; anything else is refused as a bad value.
  const auto text = string_of(value);
  if (text && parse_notice_seconds(*text)) return {};
  const MaybeJson old_value = annotation(old_js);
  if (old_js && old_value && string_of(old_value) == text) return {};
  return {field::invalid(
      field::Path("metadata").child("annotations").key(kNoticeSecondsAnnotation),
      text ? field::BadValue::string(*text) : field::BadValue::of(*value),
      "must be a whole number of seconds from 0 to " + std::to_string(kMaxNoticeSeconds) +
          ", in digits only (\"300\" for 5m); the scale-down controller would give no notice")};
}

}  // namespace jobset_webhook::validation
