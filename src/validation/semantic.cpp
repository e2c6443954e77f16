#include "jobset_webhook/validation/semantic.h"

#include <algorithm>
#include <cstdint>

#include "jobset_webhook/validation/quantity.h"

namespace jobset_webhook::validation {
namespace {

using simdjson::dom::element_type;

MaybeJson present(JsonView v) {
  if (v.type() == element_type::NULL_VALUE) return std::nullopt;
  return v;
}

bool has_type(MaybeJson v, element_type t) { return v && v->type() == t; }

bool is_number(JsonView v) {
  const auto t = v.type();
  return t == element_type::INT64 || t == element_type::UINT64 || t == element_type::DOUBLE;
}

bool numbers_equal(JsonView a, JsonView b) {
  const auto ta = a.type();
  const auto tb = b.type();
  if (ta == element_type::DOUBLE || tb == element_type::DOUBLE) {
    return a.get_double().value_unsafe() == b.get_double().value_unsafe();
  }
  if (ta == tb) {
    return ta == element_type::INT64 ? int64_t(a) == int64_t(b) : uint64_t(a) == uint64_t(b);
  }
  // One int64, one uint64: equal only when the signed one is non-negative and the same.
  const int64_t s = ta == element_type::INT64 ? int64_t(a) : int64_t(b);
  const uint64_t u = ta == element_type::UINT64 ? uint64_t(a) : uint64_t(b);
  return s >= 0 && static_cast<uint64_t>(s) == u;
}

// Seconds and nanoseconds since 1970 for an RFC 3339 time ("2024-05-01T10:00:00.5+02:00").
struct Instant {
  int64_t seconds = 0;
  int64_t nanos = 0;
  bool operator==(const Instant&) const = default;
};

int64_t days_from_civil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

std::optional<Instant> parse_time(std::string_view s) {
  auto number = [&](std::size_t pos, std::size_t len) -> std::optional<int> {
    if (pos + len > s.size()) return std::nullopt;
    int v = 0;
    for (std::size_t i = pos; i < pos + len; ++i) {
      if (s[i] < '0' || s[i] > '9') return std::nullopt;
      v = v * 10 + (s[i] - '0');
    }
    return v;
  };
  if (s.size() < 20 || s[4] != '-' || s[7] != '-' || (s[10] != 'T' && s[10] != 't') ||
      s[13] != ':' || s[16] != ':') {
    return std::nullopt;
  }
  const auto year = number(0, 4), month = number(5, 2), day = number(8, 2);
  const auto hour = number(11, 2), minute = number(14, 2), second = number(17, 2);
  if (!year || !month || !day || !hour || !minute || !second || *month < 1 || *month > 12 ||
      *day < 1 || *day > 31) {
    return std::nullopt;
  }
  Instant t;
  std::size_t pos = 19;
  if (pos < s.size() && s[pos] == '.') {
    int64_t scale = 100000000;
    for (++pos; pos < s.size() && s[pos] >= '0' && s[pos] <= '9'; ++pos, scale /= 10) {
      t.nanos += (s[pos] - '0') * scale;
    }
  }
  int64_t offset = 0;
  if (pos < s.size() && (s[pos] == 'Z' || s[pos] == 'z')) {
    ++pos;
  } else if (pos < s.size() && (s[pos] == '+' || s[pos] == '-')) {
    const auto oh = number(pos + 1, 2), om = number(pos + 4, 2);
    if (!oh || !om || pos + 3 >= s.size() || s[pos + 3] != ':') return std::nullopt;
    offset = (s[pos] == '-' ? -1 : 1) * (*oh * 3600 + *om * 60);
    pos += 6;
  } else {
    return std::nullopt;
  }
  if (pos != s.size()) return std::nullopt;
  t.seconds = days_from_civil(*year, static_cast<unsigned>(*month), static_cast<unsigned>(*day)) * 86400 +
              *hour * 3600 + *minute * 60 + *second - offset;
  return t;
}

// Go's zero time.Time, which is what an absent metav1.Time decodes to.
const Instant kZeroTime{days_from_civil(1, 1, 1) * 86400, 0};

bool scalars_equal(const FieldKind& kind, MaybeJson a, MaybeJson b) {
  if (!a && !b) return true;
  if (kind.pointer && (!a || !b)) return false;
  switch (kind.scalar) {
    case ScalarKind::kString: {
      if ((a && !has_type(a, element_type::STRING)) || (b && !has_type(b, element_type::STRING))) break;
      return (a ? std::string_view(*a) : "") == (b ? std::string_view(*b) : "");
    }
    case ScalarKind::kInteger: {
      if ((a && !is_number(*a)) || (b && !is_number(*b))) break;
      if (!a || !b) return (a ? *a : *b).get_double().value_unsafe() == 0;  // absent is 0
      return numbers_equal(*a, *b);
    }
    case ScalarKind::kBool: {
      if ((a && !has_type(a, element_type::BOOL)) || (b && !has_type(b, element_type::BOOL))) break;
      return (a && bool(*a)) == (b && bool(*b));
    }
    case ScalarKind::kQuantity: {
      if ((a && !has_type(a, element_type::STRING)) || (b && !has_type(b, element_type::STRING))) break;
      // The same text is the same value, parseable or not (then both fall back to plain JSON):
      // the common case of an unchanged field costs no parse.
      if (a && b && std::string_view(*a) == std::string_view(*b)) return true;
      const auto qa = parse_quantity(a ? std::string_view(*a) : "0");
      const auto qb = parse_quantity(b ? std::string_view(*b) : "0");
      if (!qa || !qb) break;
      return *qa == *qb;
    }
    case ScalarKind::kTime: {
      if ((a && !has_type(a, element_type::STRING)) || (b && !has_type(b, element_type::STRING))) break;
      if (a && b && std::string_view(*a) == std::string_view(*b)) return true;  // as for quantities
      const auto ta = a ? parse_time(std::string_view(*a)) : kZeroTime;
      const auto tb = b ? parse_time(std::string_view(*b)) : kZeroTime;
      if (!ta || !tb) break;
      return *ta == *tb;
    }
    case ScalarKind::kIntOrString: {
      // The zero IntOrString is the integer 0.
      const bool a_string = has_type(a, element_type::STRING);
      const bool b_string = has_type(b, element_type::STRING);
      if (a_string != b_string) return false;
      if (a_string) return std::string_view(*a) == std::string_view(*b);
      if ((a && !is_number(*a)) || (b && !is_number(*b))) break;
      if (!a || !b) return (a ? *a : *b).get_double().value_unsafe() == 0;
      return numbers_equal(*a, *b);
    }
    case ScalarKind::kRawJson:
      break;
  }
  // A value of the wrong JSON type never decodes in Go; compare what was sent.
  return json_equal(a, b);
}

// True when a and b are the same JSON text up to whitespace: the same types, scalars and keys,
// keys in strictly increasing order on both sides. Such values are equal for every kind and every
// DiffOptions (each rule of the walk is reflexive), so the walk can skip them. Strict order rules
// out duplicate keys, the one case where the walk is not reflexive (it pairs a key with the
// other side's first entry of that name). Objects from the API server are encoded from Go maps,
// sorted, so an unchanged subtree is recognised in one cheap pass instead of a walk with kinds.
//
// When false, route holds the way to the first difference: the index of the entry to descend
// into at each level, innermost first (back() is the step from a and b). It stops where the
// difference is no single entry's (types, sizes or keys differ).
bool identical(JsonView a, JsonView b, std::vector<std::uint32_t>& route) {
  const auto type = a.type();
  if (type != b.type()) return false;
  switch (type) {
    case element_type::STRING: return std::string_view(a) == std::string_view(b);
    case element_type::INT64: return a.get_int64().value_unsafe() == b.get_int64().value_unsafe();
    case element_type::UINT64: return a.get_uint64().value_unsafe() == b.get_uint64().value_unsafe();
    case element_type::DOUBLE: return a.get_double().value_unsafe() == b.get_double().value_unsafe();
    case element_type::BOOL: return a.get_bool().value_unsafe() == b.get_bool().value_unsafe();
    case element_type::NULL_VALUE: return true;
    case element_type::ARRAY: {
      const auto arr_a = JsonArrayView(a), arr_b = JsonArrayView(b);
      if (arr_a.size() != arr_b.size()) return false;
      auto it_b = arr_b.begin();
      std::uint32_t i = 0;
      for (const auto value : arr_a) {
        if (!identical(value, *it_b, route)) {
          route.push_back(i);
          return false;
        }
        ++it_b, ++i;
      }
      return true;
    }
    case element_type::OBJECT: {
      const auto obj_a = JsonObjectView(a), obj_b = JsonObjectView(b);
      if (obj_a.size() != obj_b.size()) return false;
      auto it_b = obj_b.begin();
      std::string_view previous;
      std::uint32_t i = 0;
      for (auto it_a = obj_a.begin(); it_a != obj_a.end(); ++it_a, ++it_b, ++i) {
        const std::string_view key = it_a.key();
        if (key != it_b.key() || (i > 0 && !(previous < key))) return false;
        if (!identical(it_a.value(), it_b.value(), route)) {
          route.push_back(i);
          return false;
        }
        previous = key;
      }
      return true;
    }
  }
  return false;
}

bool is_container(MaybeJson v) {
  return v && (v->type() == element_type::OBJECT || v->type() == element_type::ARRAY);
}

// Finds, for each key of one object in turn, the entry with that key in another object: the
// first one, exactly as simdjson's at_key finds it. at_key is a linear scan, so looking up every
// key made each object walk quadratic. Objects from the API server are encoded from Go maps, so
// both sides list the same keys sorted; while the keys asked come in strictly increasing order
// and each is the next entry of the other object, that entry is the partner (no earlier entry can
// hold the same key), found without a scan. Any other order falls back to at_key.
class Partners {
 public:
  explicit Partners(MaybeJson object) : has_object_(has_type(object, element_type::OBJECT)) {
    if (has_object_) {
      object_ = JsonObjectView(*object);
      next_ = object_.begin();
      end_ = object_.end();
    }
  }

  // The raw value at key (null included); nullopt when there is no object or no such key.
  std::optional<JsonView> find(std::string_view key) {
    if (!has_object_) return std::nullopt;
    if (in_step_ && next_ != end_ && (first_ || previous_ < key) && next_.key() == key) {
      const JsonView value = next_.value();
      ++next_;
      previous_ = key;
      first_ = false;
      return value;
    }
    in_step_ = false;
    JsonView value;
    if (object_.at_key(key).get(value) != simdjson::SUCCESS) return std::nullopt;
    return value;
  }

  // True when every key asked was found in step and the object has no entry left: it holds
  // exactly the keys asked, each once.
  bool matched_all() const { return has_object_ && in_step_ && next_ == end_; }

 private:
  bool has_object_;
  JsonObjectView object_;
  JsonObjectView::iterator next_, end_;
  bool in_step_ = true;
  bool first_ = true;
  std::string_view previous_;
};

// Shapes without known fields or elements, for walking plain JSON.
const FieldKind kPlainStruct{};
const FieldKind kPlainSlice{false, Shape::kSlice, ScalarKind::kString, {}, nullptr};

class Walker {
 public:
  // Deeper than any field of a pod template, so that the path of a diff is allocated once.
  static constexpr std::size_t kTypicalDepth = 24;

  // Equality mode: stops at the first difference and builds no paths.
  explicit Walker(const DiffOptions& options) : options_(options) {}
  // Diff mode: visits everything and records each difference.
  Walker(const DiffOptions& options, field::Path& path, std::vector<Change>& changes)
      : options_(options), path_(&path), changes_(&changes) {}

  bool walk(const FieldKind* kind, MaybeJson a, MaybeJson b) {
    if (on_route_) {
      on_route_ = false;  // route_ already leads from here to the first difference
    } else {
      route_.clear();
      if (is_container(a) && is_container(b) && identical(*a, *b, route_)) return true;
    }
    if (kind == nullptr) return walk_plain(a, b);
    if (ignored(kind)) return true;
    switch (kind->shape) {
      case Shape::kScalar: return record(scalars_equal(*kind, a, b), kind, a, b);
      case Shape::kStruct: return walk_struct(*kind, a, b);
      case Shape::kSlice: return walk_slice(*kind, a, b);
      case Shape::kMap: return walk_map(*kind, a, b);
    }
    return true;
  }

 private:
  bool ignored(const FieldKind* kind) const {
    return std::find(options_.ignored.begin(), options_.ignored.end(), kind) != options_.ignored.end();
  }

  bool record(bool equal, const FieldKind* kind, MaybeJson a, MaybeJson b,
              Change::What what = Change::What::kValue) {
    if (!equal && changes_ != nullptr) changes_->push_back({what, path_->to_string(), a, b, kind});
    return equal;
  }

  // Descends one level, keeping the path in step in diff mode.
  template <typename Push>
  bool descend(Push push, const FieldKind* kind, MaybeJson a, MaybeJson b) {
    if (path_ == nullptr) return walk(kind, a, b);
    // Allocated once, on the first step into a value that differs; equal values build no path.
    if (!path_reserved_) {
      path_->reserve(kTypicalDepth);
      path_reserved_ = true;
    }
    push(*path_);
    const bool equal = walk(kind, a, b);
    path_->pop();
    return equal;
  }

  bool done(bool equal) const { return !equal && changes_ == nullptr; }

  // The index of the entry of the current container where identical() found the first
  // difference; the entries before it are identical and need no walk. kNoRoute when unknown.
  // Called once, before the container's first entry is visited.
  static constexpr std::uint32_t kNoRoute = UINT32_MAX;
  std::uint32_t take_route_step() {
    if (route_.empty()) return kNoRoute;
    const std::uint32_t step = route_.back();
    route_.pop_back();
    return step;
  }

  // Descends into the entry at the route's step: the rest of the route leads on from there.
  template <typename Push>
  bool descend_on_route(Push push, const FieldKind* kind, MaybeJson a, MaybeJson b) {
    on_route_ = true;
    return descend(push, kind, a, b);
  }

  // A field the kind table does not know: plain JSON, still reported leaf by leaf.
  bool walk_plain(MaybeJson a, MaybeJson b) {
    if (changes_ == nullptr) return json_equal(a, b);
    if (has_type(a, element_type::OBJECT) && has_type(b, element_type::OBJECT)) {
      return walk_struct(kPlainStruct, a, b);
    }
    if (has_type(a, element_type::ARRAY) && has_type(b, element_type::ARRAY)) {
      return walk_slice(kPlainSlice, a, b);
    }
    return record(json_equal(a, b), nullptr, a, b);
  }

  bool walk_struct(const FieldKind& kind, MaybeJson a, MaybeJson b) {
    if (!a && !b) return true;
    // A pointer struct that appears or disappears is itself the changed leaf.
    if (kind.pointer && (!a || !b)) return record(false, &kind, a, b);
    if ((a && a->type() != element_type::OBJECT) || (b && b->type() != element_type::OBJECT)) {
      return record(json_equal(a, b), &kind, a, b);
    }
    bool equal = true;
    Partners partners(b);
    // A key that is null in a and set in b is visited again by the loop over b (a's member() is
    // absent); that second visit is kept as it was.
    bool null_against_value = false;
    if (a) {
      const std::uint32_t step = take_route_step();
      std::uint32_t i = 0;
      for (const auto [key, value] : JsonObjectView(*a)) {
        const auto push = [key = key](field::Path& p) { p.push_child(key); };
        const auto found = partners.find(key);
        if (step != kNoRoute && i < step) {
          ++i;
          continue;  // identical entries
        }
        const MaybeJson other = found ? present(*found) : std::nullopt;
        null_against_value |= !present(value) && other;
        equal &= i == step ? descend_on_route(push, kind.field(key), present(value), other)
                           : descend(push, kind.field(key), present(value), other);
        if (done(equal)) return false;
        ++i;
      }
    }
    // b holds exactly a's keys: the loop over b would skip every entry.
    if (a && partners.matched_all() && !null_against_value) return equal;
    if (b) {
      for (const auto [key, value] : JsonObjectView(*b)) {
        if (member(a, key) || !present(value)) continue;
        const auto push = [key = key](field::Path& p) { p.push_child(key); };
        equal &= descend(push, kind.field(key), std::nullopt, present(value));
        if (done(equal)) return false;
      }
    }
    return equal;
  }

  bool walk_slice(const FieldKind& kind, MaybeJson a, MaybeJson b) {
    if ((a && a->type() != element_type::ARRAY) || (b && b->type() != element_type::ARRAY)) {
      return record(json_equal(a, b), &kind, a, b);
    }
    const std::size_t size_a = a ? JsonArrayView(*a).size() : 0;
    const std::size_t size_b = b ? JsonArrayView(*b).size() : 0;
    if (size_a != size_b) return record(false, &kind, a, b, Change::What::kListLength);
    if (size_a == 0) return true;  // missing, null and empty lists are equal
    bool equal = true;
    const std::uint32_t step = take_route_step();
    auto it_b = JsonArrayView(*b).begin();
    std::size_t i = 0;
    for (const auto value_a : JsonArrayView(*a)) {
      if (step == kNoRoute || i >= step) {
        const auto push = [i](field::Path& p) { p.push_index(i); };
        equal &= i == step ? descend_on_route(push, kind.element.get(), present(value_a), present(*it_b))
                           : descend(push, kind.element.get(), present(value_a), present(*it_b));
        if (done(equal)) return false;
      }
      ++it_b, ++i;
    }
    return equal;
  }

  bool walk_map(const FieldKind& kind, MaybeJson a, MaybeJson b) {
    if ((a && a->type() != element_type::OBJECT) || (b && b->type() != element_type::OBJECT)) {
      return record(json_equal(a, b), &kind, a, b);
    }
    bool equal = true;
    Partners partners(b);
    // In a Go map an entry exists or not, whatever its value: presence is compared first.
    if (a) {
      const std::uint32_t step = take_route_step();
      std::uint32_t i = 0;
      for (const auto [key, value] : JsonObjectView(*a)) {
        const auto push = [key = key](field::Path& p) { p.push_key(key); };
        const auto other = partners.find(key);
        const std::uint32_t index = i++;
        if (step != kNoRoute && index < step) continue;  // identical entries
        if (!other) {
          if (path_ != nullptr) push(*path_);
          record(false, nullptr, present(value), std::nullopt);
          if (path_ != nullptr) path_->pop();
          equal = false;
        } else if (index == step) {
          equal &= descend_on_route(push, kind.element.get(), present(value), present(*other));
        } else {
          equal &= descend(push, kind.element.get(), present(value), present(*other));
        }
        if (done(equal)) return false;
      }
    }
    if (a && partners.matched_all()) return equal;  // every key of b is in a
    if (b) {
      for (const auto [key, value] : JsonObjectView(*b)) {
        if (a && JsonObjectView(*a).at_key(key).error() == simdjson::SUCCESS) continue;
        if (path_ != nullptr) path_->push_key(key);
        record(false, nullptr, std::nullopt, present(value));
        if (path_ != nullptr) path_->pop();
        equal = false;
        if (done(equal)) return false;
      }
    }
    return equal;
  }

  const DiffOptions& options_;
  field::Path* path_ = nullptr;
  std::vector<Change>* changes_ = nullptr;
  // Where identical() found the first difference below the node being walked (see identical),
  // and whether the next walk() is the entry on that route.
  std::vector<std::uint32_t> route_;
  bool on_route_ = false;
  bool path_reserved_ = false;
};

}  // namespace

MaybeJson member(MaybeJson object, std::string_view key) {
  if (!has_type(object, element_type::OBJECT)) return std::nullopt;
  JsonView value;
  if (JsonObjectView(*object).at_key(key).get(value) != simdjson::SUCCESS) return std::nullopt;
  return present(value);
}

bool json_equal(MaybeJson a, MaybeJson b) {
  if (!a || !b) return !a && !b;
  const auto ta = a->type();
  const auto tb = b->type();
  if (is_number(*a) && is_number(*b)) return numbers_equal(*a, *b);
  if (ta != tb) return false;
  switch (ta) {
    case element_type::STRING: return std::string_view(*a) == std::string_view(*b);
    case element_type::BOOL: return bool(*a) == bool(*b);
    case element_type::ARRAY: {
      const auto arr_a = JsonArrayView(*a);
      const auto arr_b = JsonArrayView(*b);
      if (arr_a.size() != arr_b.size()) return false;
      auto it_b = arr_b.begin();
      for (const auto va : arr_a) {
        if (!json_equal(va, *it_b)) return false;
        ++it_b;
      }
      return true;
    }
    case element_type::OBJECT: {
      for (const auto [key, value] : JsonObjectView(*a)) {
        if (!json_equal(present(value), member(b, key))) return false;
      }
      for (const auto [key, value] : JsonObjectView(*b)) {
        if (present(value) && !member(a, key)) return false;
      }
      return true;
    }
    default: return true;  // both null
  }
}

bool semantically_equal(const FieldKind* kind, MaybeJson a, MaybeJson b, const DiffOptions& options) {
  return Walker(options).walk(kind, a, b);
}

void diff(const FieldKind* kind, MaybeJson old_value, MaybeJson new_value, field::Path& path,
          const DiffOptions& options, std::vector<Change>& changes) {
  Walker(options, path, changes).walk(kind, old_value, new_value);
}

}  // namespace jobset_webhook::validation
