#pragma once

// A Json value re-read through simdjson: what we build or convert (a YAML manifest, a defaulted
// object) handed to code that reads requests, as the same kind of view a request gives it.

#include <memory>
#include <string>
#include <string_view>

#include "jobset_webhook/json.h"
#include "jobset_webhook/result.h"

namespace jobset_webhook {

class ParsedView {
 public:
  // Invalid UTF-8 in the value is replaced by U+FFFD, as the API server's decoder would.
  static Result<ParsedView> of(const Json& value) {
    return of_text(value.dump(-1, ' ', false, Json::error_handler_t::replace));
  }
  // JSON text we wrote ourselves (patch::apply_to_view), read as a request is.
  static Result<ParsedView> of_text(std::string_view text) {
    ParsedView view;
    view.parser_ = std::make_unique<simdjson::dom::parser>();
    if (const auto error = view.parser_->parse(text.data(), text.size()).get(view.root_);
        error != simdjson::SUCCESS) {
      return internal_error(std::string("cannot re-read a value as JSON: ") +
                            simdjson::error_message(error));
    }
    return view;
  }
  JsonView root() const { return root_; }

 private:
  ParsedView() = default;
  std::unique_ptr<simdjson::dom::parser> parser_;  // owns the document root_ points into
  JsonView root_;
};

}  // namespace jobset_webhook
