#pragma once

// Shared by the libFuzzer targets: invariant checks that abort (so that libFuzzer keeps the
// input as a crash), and re-serialization of a parsed document with its object keys in reverse
// order, for the invariant that no decision depends on key order.

#include <algorithm>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

#include "jobset_webhook/json.h"

// Each target defines it; libFuzzer's driver or replay_main.cpp calls it.
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size);

namespace jobset_webhook::fuzz {

// Aborts with what was violated. A plain assert would vanish under NDEBUG.
[[noreturn]] inline void violated(const char* invariant, std::string_view detail = {}) {
  std::fprintf(stderr, "invariant violated: %s\n%.*s\n", invariant, static_cast<int>(detail.size()),
               detail.data());
  std::abort();
}

inline void require(bool holds, const char* invariant, std::string_view detail = {}) {
  if (!holds) violated(invariant, detail);
}

// nlohmann's parser is iterative, but its serializer, comparison and diff recurse: the targets
// that use them keep to documents shallow enough for the stack, as the tests' own documents are.
// Brackets are counted in the raw text, strings included: a cheap bound, never too lenient.
inline bool shallow(std::string_view text, std::size_t max_depth = 200) {
  std::size_t depth = 0;
  for (const char c : text) {
    if (c == '[' || c == '{') {
      if (++depth > max_depth) return false;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return true;
}

inline void append_json_string(std::string& out, std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  out += '"';
  for (const char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (u < 0x20) {
      out += "\\u00";
      out += kHex[u >> 4];
      out += kHex[u & 15];
    } else {
      out += c;
    }
  }
  out += '"';
}

// Writes value as JSON. Numbers keep their simdjson type when read back: a double always carries
// a '.' or an exponent. Returns false when some object holds the same key twice (the admission
// layer refuses those, so key order is then meaningful).
inline bool write_json(std::string& out, JsonView value, bool reverse_keys) {
  using simdjson::dom::element_type;
  switch (value.type()) {
    case element_type::OBJECT: {
      std::vector<std::pair<std::string_view, JsonView>> members;
      std::unordered_set<std::string_view> seen;
      bool unique = true;
      for (const auto [key, v] : JsonObjectView(value)) {
        unique &= seen.insert(key).second;
        members.emplace_back(key, v);
      }
      if (reverse_keys) std::reverse(members.begin(), members.end());
      out += '{';
      for (std::size_t i = 0; i < members.size(); ++i) {
        if (i > 0) out += ',';
        append_json_string(out, members[i].first);
        out += ':';
        unique &= write_json(out, members[i].second, reverse_keys);
      }
      out += '}';
      return unique;
    }
    case element_type::ARRAY: {
      bool unique = true;
      bool first = true;
      out += '[';
      for (const auto v : JsonArrayView(value)) {
        if (!first) out += ',';
        first = false;
        unique &= write_json(out, v, reverse_keys);
      }
      out += ']';
      return unique;
    }
    case element_type::STRING: append_json_string(out, std::string_view(value)); return true;
    case element_type::INT64: out += std::to_string(int64_t(value)); return true;
    case element_type::UINT64: out += std::to_string(uint64_t(value)); return true;
    case element_type::DOUBLE: {
      char buf[64];
      const auto res = std::to_chars(buf, buf + sizeof buf, double(value));
      const std::string_view text(buf, static_cast<std::size_t>(res.ptr - buf));
      out += text;
      if (text.find_first_of(".eE") == std::string_view::npos) out += ".0";
      return true;
    }
    case element_type::BOOL: out += bool(value) ? "true" : "false"; return true;
    case element_type::NULL_VALUE: out += "null"; return true;
  }
  return true;
}

// nlohmann's view of a simdjson document (the last of duplicate keys wins; callers skip those).
inline Json to_json(JsonView value) {
  using simdjson::dom::element_type;
  switch (value.type()) {
    case element_type::OBJECT: {
      Json out = Json::object();
      for (const auto [key, v] : JsonObjectView(value)) out[std::string(key)] = to_json(v);
      return out;
    }
    case element_type::ARRAY: {
      Json out = Json::array();
      for (const auto v : JsonArrayView(value)) out.push_back(to_json(v));
      return out;
    }
    case element_type::STRING: return std::string(std::string_view(value));
    case element_type::INT64: return int64_t(value);
    case element_type::UINT64: return uint64_t(value);
    case element_type::DOUBLE: return double(value);
    case element_type::BOOL: return bool(value);
    case element_type::NULL_VALUE: return nullptr;
  }
  return nullptr;
}

}  // namespace jobset_webhook::fuzz
