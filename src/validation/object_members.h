#pragma once

// Walking the members of two JSON objects side by side, for the semantic comparison and its
// fingerprints: by key, whatever the order of either side, a key held twice counting once.

#include <string_view>

#include "jobset_webhook/field/value.h"
#include "jobset_webhook/validation/read.h"

namespace jobset_webhook::validation {

// Objects with at most this many members are compared by lookups, which allocate nothing; larger
// ones through sorted member lists, so that a map of 100,000 labels costs n log n, not n^2.
constexpr std::size_t kSmallObject = 16;

bool is_small(MaybeJson object);

// The value of key in object, null included; nullopt when the key is absent.
MaybeJson lookup(MaybeJson object, std::string_view key);

// True when key, a key of object as its iteration gave it, is not the first occurrence of that key
// (simdjson's keys point into the document, so each occurrence has its own address).
bool repeats_earlier(JsonView object, std::string_view key);

// True when the keys of object come in strictly increasing byte order: then it holds no key
// twice and its own order is byte order. The API server encodes objects from Go maps, so every
// object of a real request is like this.
bool keys_increasing(MaybeJson object);

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

}  // namespace jobset_webhook::validation
