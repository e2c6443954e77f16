#include <cstdint>
#include <cstring>
#include <functional>

#include "semantic.h"
#include "json_values.h"
#include "object_members.h"
#include "rfc3339.h"

namespace jobset_webhook::validation {
namespace {

using simdjson::dom::element_type;

// Fingerprints (fingerprint() in semantic.h). Each rule mirrors the comparison of semantic.cpp:
// values it finds equal get the same fingerprint.
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
      const auto t = v ? parse_time(std::string_view(*v)) : zero_time();
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

uint64_t fingerprint(const FieldKind* kind, MaybeJson v) {
  return kind_fingerprint(kind, present(v));
}

}  // namespace jobset_webhook::validation
