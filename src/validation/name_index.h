#pragma once

// A read-only table from names to the nodes of a schema table (field_kinds.h, crd_schema.h), built
// once: open addressing, a power of two at most half full, an empty slot without a node. A review
// looks names up hundreds of times; a std::map or a sorted vector cost a string comparison per
// step, which was most of the schema walk's time.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <utility>
#include <vector>

namespace jobset_webhook::validation {

// The first and last eight bytes and the length, mixed: a few instructions for any name. A
// byte-at-a-time hash (FNV) cost more than the std::map it replaced, a multiplication per byte.
inline std::size_t hash_of_name(std::string_view name) {
  std::uint64_t head = 0;
  std::uint64_t tail = 0;
  if (name.size() >= sizeof head) {
    std::memcpy(&head, name.data(), sizeof head);
    std::memcpy(&tail, name.data() + name.size() - sizeof tail, sizeof tail);
  } else {
    for (const char c : name) head = (head << 8) | static_cast<unsigned char>(c);
  }
  const std::uint64_t mixed =
      (head * 0x9E3779B97F4A7C15ULL) ^ (tail * 0xC2B2AE3D27D4EB4FULL) ^ name.size();
  return static_cast<std::size_t>(mixed ^ (mixed >> 29));
}

template <typename Node>
class NameIndex {
 public:
  // The names must outlive the index (they are the table's own strings).
  void build(const std::vector<std::pair<std::string_view, const Node*>>& entries) {
    std::size_t size = 2;
    while (size < 2 * entries.size()) size *= 2;
    slots_.assign(size, {std::string_view(), nullptr});
    for (const auto& entry : entries) {
      std::size_t i = hash_of_name(entry.first) & (size - 1);
      while (slots_[i].second != nullptr) i = (i + 1) & (size - 1);
      slots_[i] = entry;
    }
  }

  bool built() const { return !slots_.empty(); }

  // The node of name; nullptr when there is none.
  const Node* find(std::string_view name) const {
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t i = hash_of_name(name) & mask;; i = (i + 1) & mask) {
      const auto& [key, node] = slots_[i];
      if (node == nullptr) return nullptr;
      if (key == name) return node;
    }
  }

 private:
  std::vector<std::pair<std::string_view, const Node*>> slots_;
};

}  // namespace jobset_webhook::validation
