#include "jobset_webhook/validation/semantic.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>

#include "jobset_webhook/field/value.h"
#include "jobset_webhook/validation/quantity.h"
#include "jobset_webhook/validation/read.h"

namespace jobset_webhook::validation {
namespace {

using simdjson::dom::element_type;

MaybeJson present(JsonView v) {
  if (v.type() == element_type::NULL_VALUE) return std::nullopt;
  return v;
}

MaybeJson present(MaybeJson v) { return v ? present(*v) : std::nullopt; }

bool has_type(MaybeJson v, element_type t) { return v && v->type() == t; }

// Objects with at most this many members are compared by lookups, which allocate nothing; larger
// ones through sorted member lists, so that a map of 100,000 labels costs n log n, not n^2.
constexpr std::size_t kSmallObject = 16;

bool is_small(MaybeJson object) {
  return !object || JsonObjectView(*object).size() <= kSmallObject;
}

// The value of key in object, null included; nullopt when the key is absent.
MaybeJson lookup(MaybeJson object, std::string_view key) {
  JsonView value;
  if (!object || JsonObjectView(*object).at_key(key).get(value) != simdjson::SUCCESS)
    return std::nullopt;
  return value;
}

// True when key, a key of object as its iteration gave it, is not the first occurrence of that key
// (simdjson's keys point into the document, so each occurrence has its own address).
bool repeats_earlier(JsonView object, std::string_view key) {
  for (const auto [k, value] : JsonObjectView(object)) {
    (void)value;
    if (k == key) return k.data() != key.data();
  }
  return false;
}

// True when the keys of object come in strictly increasing byte order: then it holds no key
// twice and its own order is byte order. The API server encodes objects from Go maps, so every
// object of a real request is like this.
bool keys_increasing(MaybeJson object) {
  if (!object) return true;
  const JsonObjectView members(*object);
  auto it = members.begin();
  const auto end = members.end();
  if (it == end) return true;
  std::string_view previous = it.key();
  for (++it; it != end; ++it) {
    const std::string_view key = it.key();
    if (!field::key_less(previous, key)) return false;
    previous = key;
  }
  return true;
}

// for_each_member when both objects list their keys in strictly increasing order: one merge over
// the two in their own order, which is byte order, so nothing is sorted, copied or looked up.
template <typename Visit>
bool merge_members(MaybeJson a, MaybeJson b, bool sorted, Visit& visit) {
  JsonObjectView::iterator ia, ea, ib, eb;
  if (a) ia = JsonObjectView(*a).begin(), ea = JsonObjectView(*a).end();
  if (b) ib = JsonObjectView(*b).begin(), eb = JsonObjectView(*b).end();
  const bool has_a = a.has_value(), has_b = b.has_value();
  bool all = true;
  for (;;) {
    const bool more_a = has_a && ia != ea, more_b = has_b && ib != eb;
    if (!more_a && !more_b) return all;
    bool equal = true;
    const std::string_view ka = more_a ? ia.key() : std::string_view();
    const std::string_view kb = more_b ? ib.key() : std::string_view();
    if (!more_b || (more_a && field::key_less(ka, kb))) {
      equal = visit(ka, MaybeJson(ia.value()), std::nullopt);
      ++ia;
    } else if (!more_a || field::key_less(kb, ka)) {
      equal = visit(kb, std::nullopt, MaybeJson(ib.value()));
      ++ib;
    } else {
      equal = visit(ka, MaybeJson(ia.value()), MaybeJson(ib.value()));
      ++ia, ++ib;
    }
    all &= equal;
    if (!all && !sorted) return false;
  }
}

// Calls visit(key, a_value, b_value) once per key of either object (a or b may be absent; a
// side that lacks the key gets nullopt, a null value is passed as null) and returns whether every
// visit returned true. With `sorted`, keys come in byte order, so that what a diff reports does
// not depend on the key order of the request; without it, visiting stops at the first false.
template <typename Visit>
bool for_each_member(MaybeJson a, MaybeJson b, bool sorted, Visit visit) {
  if (keys_increasing(a) && keys_increasing(b)) return merge_members(a, b, sorted, visit);
  bool all = true;
  if (!sorted && is_small(a) && is_small(b)) {
    // A key held twice counts once, with its first value (what lookup, member() and
    // sorted_members read), so that an object always equals itself.
    if (a) {
      for (const auto [key, value] : JsonObjectView(*a)) {
        if (repeats_earlier(*a, key)) continue;
        if (!visit(key, MaybeJson(value), lookup(b, key))) return false;
      }
    }
    if (b) {
      for (const auto [key, value] : JsonObjectView(*b)) {
        if (repeats_earlier(*b, key) || lookup(a, key)) continue;
        if (!visit(key, std::nullopt, MaybeJson(value))) return false;
      }
    }
    return true;
  }
  const field::Members ma = a ? field::sorted_members(JsonObjectView(*a)) : field::Members{};
  const field::Members mb = b ? field::sorted_members(JsonObjectView(*b)) : field::Members{};
  std::size_t i = 0, j = 0;
  while (i < ma.size() || j < mb.size()) {
    bool equal = true;
    if (j == mb.size() || (i < ma.size() && ma[i].first < mb[j].first)) {
      equal = visit(ma[i].first, MaybeJson(ma[i].second), std::nullopt);
      ++i;
    } else if (i == ma.size() || mb[j].first < ma[i].first) {
      equal = visit(mb[j].first, std::nullopt, MaybeJson(mb[j].second));
      ++j;
    } else {
      equal = visit(ma[i].first, MaybeJson(ma[i].second), MaybeJson(mb[j].second));
      ++i, ++j;
    }
    all &= equal;
    if (!all && !sorted) return false;
  }
  return all;
}

bool is_number(JsonView v) {
  const auto t = v.type();
  return t == element_type::INT64 || t == element_type::UINT64 || t == element_type::DOUBLE;
}

// A JSON number above int64's range as the uint64 Go would decode it into: a uint64, or a
// double with an integral value in [2^63, 2^64).
std::optional<uint64_t> big_unsigned(JsonView v) {
  if (v.type() == element_type::UINT64) return v.get_uint64().value_unsafe();
  if (v.type() != element_type::DOUBLE) return std::nullopt;
  const double d = v.get_double().value_unsafe();
  if (std::trunc(d) != d || d < 9223372036854775808.0 || d >= 18446744073709551616.0)
    return std::nullopt;
  return static_cast<uint64_t>(d);
}

// Numbers compare as the integers the API server stores when both are integers (an integral
// double such as 3.0 is the integer 3), exactly, never through a double: 9007199254740993 and
// 9007199254740992.0 differ. Other numbers compare as doubles.
bool numbers_equal(JsonView a, JsonView b) {
  const auto ia = integer_of(a), ib = integer_of(b);
  if (ia || ib) return ia && ib && *ia == *ib;
  const auto ua = big_unsigned(a), ub = big_unsigned(b);
  if (ua || ub) return ua && ub && *ua == *ub;
  return a.get_double().value_unsafe() == b.get_double().value_unsafe();
}

bool is_zero(JsonView number) { return integer_of(number) == 0; }

bool is_quantity_json(JsonView v) { return v.type() == element_type::STRING || is_number(v); }

// The quantity a string or a JSON number holds. A number is read from the text the API server
// writes for it: integers in decimal, other numbers as the shortest text that reads back as the
// same double (Go's encoder and std::to_chars both write that).
std::optional<ExactQuantity> quantity_of(JsonView v) {
  switch (v.type()) {
    case element_type::STRING: return parse_quantity(std::string_view(v));
    case element_type::INT64: return parse_quantity(std::to_string(v.get_int64().value_unsafe()));
    case element_type::UINT64: return parse_quantity(std::to_string(v.get_uint64().value_unsafe()));
    case element_type::DOUBLE: {
      std::array<char, 64> buf{};
      const auto res = std::to_chars(buf.data(), buf.data() + buf.size(),
                                     v.get_double().value_unsafe(), std::chars_format::scientific);
      return parse_quantity(
          std::string_view(buf.data(), static_cast<std::size_t>(res.ptr - buf.data())));
    }
    default: return std::nullopt;
  }
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
  t.seconds =
      days_from_civil(*year, static_cast<unsigned>(*month), static_cast<unsigned>(*day)) * 86400 +
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
      if ((a && !has_type(a, element_type::STRING)) || (b && !has_type(b, element_type::STRING)))
        break;
      return (a ? std::string_view(*a) : "") == (b ? std::string_view(*b) : "");
    }
    case ScalarKind::kInteger: {
      if ((a && !is_number(*a)) || (b && !is_number(*b))) break;
      if (!a || !b) return is_zero(a ? *a : *b);  // absent is 0
      return numbers_equal(*a, *b);
    }
    case ScalarKind::kBool: {
      if ((a && !has_type(a, element_type::BOOL)) || (b && !has_type(b, element_type::BOOL))) break;
      return (a && bool(*a)) == (b && bool(*b));
    }
    case ScalarKind::kQuantity: {
      // The CRD declares quantities anyOf [integer, string], and Go's Quantity.UnmarshalJSON reads
      // a JSON number by its text: 1 and "1" are the same quantity.
      if ((a && !is_quantity_json(*a)) || (b && !is_quantity_json(*b))) break;
      // The same text is the same value, parseable or not (then both sides fall back to plain
      // JSON, equal too): an unchanged quantity costs no parse.
      if (has_type(a, element_type::STRING) && has_type(b, element_type::STRING) &&
          std::string_view(*a) == std::string_view(*b))
        return true;
      const auto qa = a ? quantity_of(*a) : parse_quantity("0");
      const auto qb = b ? quantity_of(*b) : parse_quantity("0");
      if (!qa || !qb) break;
      return *qa == *qb;
    }
    case ScalarKind::kTime: {
      if ((a && !has_type(a, element_type::STRING)) || (b && !has_type(b, element_type::STRING)))
        break;
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
      if (!a || !b) return is_zero(a ? *a : *b);
      return numbers_equal(*a, *b);
    }
    case ScalarKind::kRawJson: break;
  }
  // A value of the wrong JSON type never decodes in Go; compare what was sent.
  return json_equal(a, b);
}

// True when a and b are the same JSON up to whitespace: the same types and scalars, and objects
// with the same keys in strictly increasing order on both sides. Such values are equal for every
// kind and every DiffOptions, since each rule of the walk is reflexive; the one exception, an
// object holding a key twice (the walk pairs it with the other side's first entry of that name),
// is ruled out by the strict order. As the API server sends sorted objects, an unchanged subtree
// is recognised by this one pass, without kinds, lookups or paths.
bool identical(JsonView a, JsonView b) {
  const auto type = a.type();
  if (type != b.type()) return false;
  switch (type) {
    case element_type::STRING: return std::string_view(a) == std::string_view(b);
    case element_type::INT64: return a.get_int64().value_unsafe() == b.get_int64().value_unsafe();
    case element_type::UINT64:
      return a.get_uint64().value_unsafe() == b.get_uint64().value_unsafe();
    case element_type::DOUBLE:
      return a.get_double().value_unsafe() == b.get_double().value_unsafe();
    case element_type::BOOL: return a.get_bool().value_unsafe() == b.get_bool().value_unsafe();
    case element_type::NULL_VALUE: return true;
    case element_type::ARRAY: {
      const auto arr_a = JsonArrayView(a), arr_b = JsonArrayView(b);
      auto ia = arr_a.begin(), ib = arr_b.begin();
      const auto ea = arr_a.end(), eb = arr_b.end();
      for (; ia != ea && ib != eb; ++ia, ++ib) {
        if (!identical(*ia, *ib)) return false;
      }
      return ia == ea && ib == eb;
    }
    case element_type::OBJECT: {
      const auto obj_a = JsonObjectView(a), obj_b = JsonObjectView(b);
      auto ia = obj_a.begin(), ib = obj_b.begin();
      const auto ea = obj_a.end(), eb = obj_b.end();
      std::string_view previous;
      for (bool first = true; ia != ea && ib != eb; ++ia, ++ib, first = false) {
        const std::string_view key = ia.key();
        if (key != ib.key() || (!first && !field::key_less(previous, key))) return false;
        if (!identical(ia.value(), ib.value())) return false;
        previous = key;
      }
      return ia == ea && ib == eb;
    }
  }
  return false;
}

// Both absent (null counts as absent), or identical.
bool same(MaybeJson a, MaybeJson b) { return a ? b && identical(*a, *b) : !b; }

// Shapes without known fields or elements, for walking plain JSON.
const FieldKind kPlainStruct{};
const FieldKind kPlainSlice{false, Shape::kSlice, ScalarKind::kString, {}, nullptr, {}};

class Walker {
 public:
  // Equality mode: stops at the first difference and builds no paths.
  explicit Walker(const DiffOptions& options) : options_(options) {}
  // Diff mode: visits everything and records each difference.
  Walker(const DiffOptions& options, field::Path& path, std::vector<Change>& changes)
      : options_(options), path_(&path), changes_(&changes) {}

  bool walk(const FieldKind* kind, MaybeJson a, MaybeJson b) {
    return same(a, b) || compare(kind, a, b);
  }

 private:
  // walk() for values that are not the same().
  bool compare(const FieldKind* kind, MaybeJson a, MaybeJson b) {
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

  bool ignored(const FieldKind* kind) const {
    return std::find(options_.ignored.begin(), options_.ignored.end(), kind) !=
           options_.ignored.end();
  }

  bool record(bool equal, const FieldKind* kind, MaybeJson a, MaybeJson b,
              Change::What what = Change::What::kValue) {
    if (!equal && changes_ != nullptr) changes_->push_back({what, path_->to_string(), a, b, kind});
    return equal;
  }

  // Descends one level, keeping the path in step in diff mode. The same values on both sides are
  // passed over before the path is touched.
  template <typename Push>
  bool descend(Push push, const FieldKind* kind, MaybeJson a, MaybeJson b) {
    if (same(a, b)) return true;
    if (path_ == nullptr) return compare(kind, a, b);
    push(*path_);
    const bool equal = compare(kind, a, b);
    path_->pop();
    return equal;
  }

  bool done(bool equal) const { return !equal && changes_ == nullptr; }

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
    return for_each_member(a, b, changes_ != nullptr,
                           [&](std::string_view key, MaybeJson va, MaybeJson vb) {
                             const auto push = [key](field::Path& p) { p.push_child(key); };
                             return descend(push, kind.field(key), present(va), present(vb));
                           });
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
    auto it_b = JsonArrayView(*b).begin();
    std::size_t i = 0;
    for (const auto value_a : JsonArrayView(*a)) {
      const auto push = [i](field::Path& p) { p.push_index(i); };
      equal &= descend(push, kind.element.get(), present(value_a), present(*it_b));
      if (done(equal)) return false;
      ++it_b, ++i;
    }
    return equal;
  }

  bool walk_map(const FieldKind& kind, MaybeJson a, MaybeJson b) {
    if ((a && a->type() != element_type::OBJECT) || (b && b->type() != element_type::OBJECT)) {
      return record(json_equal(a, b), &kind, a, b);
    }
    // In a Go map an entry exists or not, whatever its value: presence is compared first.
    return for_each_member(a, b, changes_ != nullptr,
                           [&](std::string_view key, MaybeJson va, MaybeJson vb) {
                             const auto push = [key](field::Path& p) { p.push_key(key); };
                             if (va && vb)
                               return descend(push, kind.element.get(), present(va), present(vb));
                             if (path_ != nullptr) push(*path_);
                             record(false, nullptr, present(va), present(vb));
                             if (path_ != nullptr) path_->pop();
                             return false;
                           });
  }

  const DiffOptions& options_;
  field::Path* path_ = nullptr;
  std::vector<Change>* changes_ = nullptr;
};

// Fingerprints (fingerprint() in semantic.h). Each rule mirrors the comparison above: values it
// finds equal get the same fingerprint.
uint64_t mix(uint64_t x) {  // splitmix64's finalizer
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

uint64_t mix2(uint64_t a, uint64_t b) { return mix(a * 0x9e3779b97f4a7c15ULL + b); }

enum Domain : uint64_t { kAbsent = 1, kText, kInteger, kUnsigned, kReal, kBool, kList, kObject };

uint64_t of_text(std::string_view s) { return mix2(kText, std::hash<std::string_view>{}(s)); }

// As numbers_equal compares.
uint64_t of_number(JsonView v) {
  if (const auto n = integer_of(v)) return mix2(kInteger, static_cast<uint64_t>(*n));
  if (const auto u = big_unsigned(v)) return mix2(kUnsigned, *u);
  const double d = v.get_double().value_unsafe();
  uint64_t bits = 0;
  std::memcpy(&bits, &d, sizeof bits);
  return mix2(kReal, bits);
}

uint64_t of_quantity(const ExactQuantity& q) {
  return mix2(mix2(of_text(q.digits), static_cast<uint64_t>(q.exponent)), q.negative ? 1 : 0);
}

// Calls visit(key, value) once per key of object, with its first value (as for_each_member).
template <typename Visit>
void for_each_first(JsonView object, Visit visit) {
  if (keys_increasing(object)) {
    for (const auto [key, value] : JsonObjectView(object)) visit(key, value);
    return;
  }
  for (const auto& [key, value] : field::sorted_members(JsonObjectView(object))) visit(key, value);
}

// As json_equal compares: null members are absent, keys in any order.
uint64_t plain_fingerprint(MaybeJson v) {
  if (!v || v->type() == element_type::NULL_VALUE) return kAbsent;
  switch (v->type()) {
    case element_type::STRING: return of_text(std::string_view(*v));
    case element_type::BOOL: return mix2(kBool, bool(*v) ? 1 : 0);
    case element_type::ARRAY: {
      uint64_t h = kList;
      for (const auto e : JsonArrayView(*v)) h = mix2(h, plain_fingerprint(e));
      return h;
    }
    case element_type::OBJECT: {
      uint64_t sum = 0;  // a sum, so that key order does not matter
      for_each_first(*v, [&](std::string_view key, JsonView value) {
        if (value.type() != element_type::NULL_VALUE)
          sum += mix2(of_text(key), plain_fingerprint(value));
      });
      return mix2(kObject, sum);
    }
    default: return of_number(*v);
  }
}

uint64_t kind_fingerprint(const FieldKind* kind, MaybeJson v);

// As scalars_equal compares: a value of the wrong JSON type as plain JSON, an absent value as the
// kind's zero value (or as absent for a pointer).
uint64_t scalar_fingerprint(const FieldKind& kind, MaybeJson v) {
  if (!v && kind.pointer) return kAbsent;
  switch (kind.scalar) {
    case ScalarKind::kString:
      if (!v) return of_text("");
      if (v->type() == element_type::STRING) return of_text(std::string_view(*v));
      break;
    case ScalarKind::kInteger:
      if (!v) return mix2(kInteger, 0);
      if (is_number(*v)) return of_number(*v);
      break;
    case ScalarKind::kBool:
      if (!v) return mix2(kBool, 0);
      if (v->type() == element_type::BOOL) return mix2(kBool, bool(*v) ? 1 : 0);
      break;
    case ScalarKind::kQuantity: {
      if (v && !is_quantity_json(*v)) break;
      const auto q = v ? quantity_of(*v) : parse_quantity("0");
      if (q) return of_quantity(*q);
      break;
    }
    case ScalarKind::kTime: {
      if (v && v->type() != element_type::STRING) break;
      const auto t = v ? parse_time(std::string_view(*v)) : kZeroTime;
      if (t)
        return mix2(mix2(kReal, static_cast<uint64_t>(t->seconds)),
                    static_cast<uint64_t>(t->nanos));
      break;
    }
    case ScalarKind::kIntOrString:
      if (!v) return mix2(kInteger, 0);
      if (v->type() == element_type::STRING) return of_text(std::string_view(*v));
      if (is_number(*v)) return of_number(*v);
      break;
    case ScalarKind::kRawJson: break;
  }
  return plain_fingerprint(v);
}

// As walk_struct compares: a member equal to its absent self adds nothing.
uint64_t struct_fingerprint(const FieldKind& kind, MaybeJson v) {
  if (!v) return kind.pointer ? kAbsent : mix2(kObject, 0);
  if (v->type() != element_type::OBJECT) return plain_fingerprint(v);
  uint64_t sum = 0;
  for_each_first(*v, [&](std::string_view key, JsonView value) {
    const FieldKind* field = kind.field(key);
    const uint64_t h = kind_fingerprint(field, present(value));
    if (h != kind_fingerprint(field, std::nullopt)) sum += mix2(of_text(key), h);
  });
  return mix2(kObject, sum);
}

uint64_t kind_fingerprint(const FieldKind* kind, MaybeJson v) {
  if (kind == nullptr) return plain_fingerprint(v);
  switch (kind->shape) {
    case Shape::kScalar: return scalar_fingerprint(*kind, v);
    case Shape::kStruct: return struct_fingerprint(*kind, v);
    case Shape::kSlice: {
      // Missing, null and empty lists are equal.
      if (v && v->type() != element_type::ARRAY) return plain_fingerprint(v);
      uint64_t h = kList;
      if (v) {
        for (const auto e : JsonArrayView(*v))
          h = mix2(h, kind_fingerprint(kind->element.get(), present(e)));
      }
      return h;
    }
    case Shape::kMap: {
      // Entries count by presence, whatever their value.
      if (v && v->type() != element_type::OBJECT) return plain_fingerprint(v);
      uint64_t sum = 0;
      if (v) {
        for_each_first(*v, [&](std::string_view key, JsonView value) {
          sum += mix2(of_text(key), kind_fingerprint(kind->element.get(), present(value)));
        });
      }
      return mix2(kObject, sum);
    }
  }
  return plain_fingerprint(v);
}

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
    case element_type::OBJECT:
      return for_each_member(a, b, false, [](std::string_view, MaybeJson va, MaybeJson vb) {
        return json_equal(present(va), present(vb));
      });
    default: return true;  // both null
  }
}

bool semantically_equal(const FieldKind* kind, MaybeJson a, MaybeJson b,
                        const DiffOptions& options) {
  return Walker(options).walk(kind, a, b);
}

uint64_t fingerprint(const FieldKind* kind, MaybeJson v) {
  return kind_fingerprint(kind, present(v));
}

void diff(const FieldKind* kind, MaybeJson old_value, MaybeJson new_value, field::Path& path,
          const DiffOptions& options, std::vector<Change>& changes) {
  Walker(options, path, changes).walk(kind, old_value, new_value);
}

}  // namespace jobset_webhook::validation
