#include "json_values.h"

#include <array>
#include <charconv>
#include <cmath>
#include <string>

#include "semantic.h"
#include "object_members.h"

namespace jobset_webhook::validation {

using simdjson::dom::element_type;

MaybeJson present(JsonView v) {
  if (v.type() == element_type::NULL_VALUE) return std::nullopt;
  return v;
}

MaybeJson present(MaybeJson v) { return v ? present(*v) : std::nullopt; }

bool has_type(MaybeJson v, element_type t) { return v && v->type() == t; }

bool is_number(JsonView v) {
  const auto t = v.type();
  return t == element_type::INT64 || t == element_type::UINT64 || t == element_type::DOUBLE;
}

std::optional<std::uint64_t> big_unsigned(JsonView v) {
  if (v.type() == element_type::UINT64) return v.get_uint64().value_unsafe();
  if (v.type() != element_type::DOUBLE) return std::nullopt;
  const double d = v.get_double().value_unsafe();
  if (std::trunc(d) != d || d < 9223372036854775808.0 || d >= 18446744073709551616.0)
    return std::nullopt;
  return static_cast<std::uint64_t>(d);
}

bool numbers_equal(JsonView a, JsonView b) {
  const auto ia = integer_of(a), ib = integer_of(b);
  if (ia || ib) return ia && ib && *ia == *ib;
  const auto ua = big_unsigned(a), ub = big_unsigned(b);
  if (ua || ub) return ua && ub && *ua == *ub;
  return a.get_double().value_unsafe() == b.get_double().value_unsafe();
}

bool is_zero(JsonView number) { return integer_of(number) == 0; }

bool is_quantity_json(JsonView v) { return v.type() == element_type::STRING || is_number(v); }

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

}  // namespace jobset_webhook::validation
