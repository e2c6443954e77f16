#pragma once

// Test helper: a JSON document parsed into simdjson's DOM, owning its parser so that the view
// stays valid as long as the object lives.

#include <memory>
#include <stdexcept>
#include <string>

#include "jobset_webhook/json.h"

namespace jobset_webhook::testing {

class Parsed {
 public:
  explicit Parsed(const char* text) : Parsed(std::string(text)) {}
  explicit Parsed(const std::string& text) : parser_(std::make_unique<simdjson::dom::parser>()) {
    if (parser_->parse(text).get(root_) != simdjson::SUCCESS)
      throw std::runtime_error("bad JSON in test: " + text);
  }
  explicit Parsed(const Json& value) : Parsed(value.dump()) {}
  JsonView root() const { return root_; }
  operator JsonView() const { return root_; }  // NOLINT: a test convenience

 private:
  std::unique_ptr<simdjson::dom::parser> parser_;
  JsonView root_;
};

}  // namespace jobset_webhook::testing
