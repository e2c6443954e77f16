#include "admission/duplicate_keys.h"

#include <catch2/catch.hpp>
#include <random>
#include <set>
#include <string>

namespace {

using jobset_webhook::JsonObjectView;
using jobset_webhook::JsonView;
using jobset_webhook::admission::duplicate_key;
using simdjson::dom::element_type;

// The reference, through the DOM: every key given twice in some object.
void collect_duplicates(JsonView value, std::set<std::string_view>& found) {
  if (value.type() == element_type::ARRAY) {
    for (const auto element : simdjson::dom::array(value)) collect_duplicates(element, found);
    return;
  }
  if (value.type() != element_type::OBJECT) return;
  std::set<std::string_view> seen;
  for (const auto [key, member] : JsonObjectView(value)) {
    if (!seen.insert(key).second) found.insert(key);
    collect_duplicates(member, found);
  }
}

// Random JSON of every tape type: nested objects and arrays, strings that look like keys as
// values (so that a scan confusing values with keys is caught), numbers of all three kinds (two
// tape words each). Keys come from a small set, so duplicates are common; objects are sorted, or
// not, at random.
class RandomJson {
 public:
  explicit RandomJson(unsigned seed) : rng_(seed) {}

  std::string document() { return object(0); }

 private:
  std::string value(int depth) {
    switch (pick(depth > 4 ? 6 : 8)) {
      case 0: return quoted(key());
      case 1: return std::to_string(static_cast<int>(pick(2000)) - 1000);
      case 2: return "18446744073709551615";
      case 3: return "0.5";
      case 4: return pick(3) == 0 ? "null" : pick(2) == 0 ? "true" : "false";
      // A number's second tape word is raw: these read as '{', '"' and '}' if it is not skipped.
      case 5:
        return std::vector<std::string>{"8863084066665136128", "2449958197289549824",
                                        "9007199254740992000"}[pick(3)];
      case 6: return array(depth + 1);
      default: return object(depth + 1);
    }
  }

  static std::string quoted(const std::string& text) {
    std::string out = "\"";
    out += text;
    out += '"';
    return out;
  }

  std::size_t pick(std::size_t n) {
    return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng_);
  }
  // Some keys share their first eight bytes, which the scan compares as one number.
  std::string key() {
    const std::string letters(1 + pick(2), static_cast<char>('a' + pick(4)));
    return (pick(3) == 0 ? "longkey-" : "") + letters;
  }

  std::string array(int depth) {
    std::string out = "[";
    for (std::size_t i = 0, n = pick(4); i < n; ++i) {
      if (i > 0) out += ',';
      out += value(depth);
    }
    return out + "]";
  }

  std::string object(int depth) {
    std::vector<std::string> keys;
    for (std::size_t i = 0, n = pick(5); i < n; ++i) keys.push_back(key());
    if (pick(8) != 0) std::sort(keys.begin(), keys.end());
    std::string out = "{";
    for (std::size_t i = 0; i < keys.size(); ++i) {
      if (i > 0) out += ',';
      out += quoted(keys[i]) + ':';
      out += value(depth);
    }
    return out + "}";
  }

  std::mt19937 rng_;
};

}  // namespace

TEST_CASE("The tape scan finds a duplicate key exactly when the DOM shows one",
          "[admission][duplicate_keys]") {
  simdjson::dom::parser parser;
  RandomJson random(8);
  int with_duplicates = 0;
  for (int i = 0; i < 5000; ++i) {
    const std::string text = random.document();
    JsonView root;
    REQUIRE(parser.parse(text).get(root) == simdjson::SUCCESS);
    std::set<std::string_view> duplicated;
    collect_duplicates(root, duplicated);
    INFO(text);
    const auto found = duplicate_key(parser.doc);
    REQUIRE(found.has_value() == !duplicated.empty());
    if (found) {
      CHECK(duplicated.count(*found) == 1);
      ++with_duplicates;
    }
  }
  // Both answers must be common for the comparison to mean something.
  CHECK(with_duplicates > 500);
  CHECK(with_duplicates < 4000);
}

TEST_CASE("Duplicate keys are found wherever the order breaks", "[admission][duplicate_keys]") {
  simdjson::dom::parser parser;
  struct Case {
    const char* json;
    const char* duplicate;  // nullptr: none
  };
  const Case cases[] = {
      {R"({"a":1,"b":{"c":[1,2.5,{"d":"a","e":"b"}],"x":"y"},"c":null})", nullptr},
      {R"({"a":1,"b":{"c":[1,2.5,{"d":"a","d":"b"}],"x":"y"},"c":null})", "d"},
      {R"({"a":1,"b":{"c":[{"z":1}],"c":2},"c":null})", "c"},
      {R"({"b":{"k":1},"a":2,"b":3})", "b"},
      {R"({"b":1,"a":2})", nullptr},  // out of order, no duplicate
      {R"([{"a":1},{"a":1}])", nullptr},
      {R"({"a":[{"a":{"a":1}}],"b":1})", nullptr},
      {R"({"":1,"":2})", ""},
      {R"("a")", nullptr},
      {R"(7)", nullptr},
  };
  for (const auto& c : cases) {
    DYNAMIC_SECTION(c.json) {
      REQUIRE(parser.parse(std::string(c.json)).error() == simdjson::SUCCESS);
      const auto found = duplicate_key(parser.doc);
      if (c.duplicate == nullptr) {
        CHECK_FALSE(found);
      } else {
        REQUIRE(found);
        CHECK(*found == std::string_view(c.duplicate));
      }
    }
  }
}
