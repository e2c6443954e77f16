#include "duplicate_keys.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

namespace jobset_webhook::admission {
namespace {

// simdjson's tape, as its doc/tape.md describes it: one 64-bit word per value, the type character
// in the top byte and a 56-bit payload. The first word ('r') holds the index of the last. An
// object or array opens with '{' or '[', whose payload's low 32 bits are the index just past its
// matching '}' or ']'. A string's payload is an offset into string_buf, where a 32-bit length
// precedes the bytes. Numbers ('l', 'u', 'd') take a second word for the value.
constexpr std::uint64_t kPayloadMask = (std::uint64_t{1} << 56) - 1;

class Tape {
 public:
  explicit Tape(const simdjson::dom::document& document)
      : words_(document.tape.get()), strings_(document.string_buf.get()) {}

  std::size_t last() const { return words_[0] & kPayloadMask; }
  char type(std::size_t i) const { return static_cast<char>(words_[i] >> 56); }

  // The first eight bytes of a string as a big-endian number, zero-padded: comparing two of those
  // orders most keys without a call to memcmp. Reading eight bytes is safe: simdjson pads
  // string_buf by SIMDJSON_PADDING past the most its strings can take.
  static std::uint64_t prefix_of(std::string_view text) {
    std::uint64_t prefix = 0;
    std::memcpy(&prefix, text.data(), sizeof prefix);
    prefix = __builtin_bswap64(prefix);
    if (text.size() >= sizeof prefix) return prefix;
    return prefix & ~(~std::uint64_t{0} >> (8 * text.size()));
  }

  std::string_view string(std::size_t i) const {
    const std::uint8_t* at = strings_ + (words_[i] & kPayloadMask);
    std::uint32_t length = 0;
    std::memcpy(&length, at, sizeof length);
    return {reinterpret_cast<const char*>(at + sizeof length), length};
  }

  // The index just past the value at i.
  std::size_t after(std::size_t i) const {
    switch (type(i)) {
      case '{':
      case '[': return static_cast<std::uint32_t>(words_[i]);
      case 'l':
      case 'u':
      case 'd': return i + 2;
      default: return i + 1;
    }
  }

 private:
  const std::uint64_t* words_;
  const std::uint8_t* strings_;
};

// Objects with at most this many members are checked pairwise, larger ones through a sorted copy
// of their keys: linear for the usual small objects, n log n for a 100,000-entry map.
constexpr std::size_t kSmallObject = 16;

// The first key given twice in the object that opens at `open`, if any.
std::optional<std::string_view> duplicate_in_object(const Tape& tape, std::size_t open) {
  std::vector<std::string_view> keys;
  for (std::size_t i = open + 1; tape.type(i) != '}'; i = tape.after(i + 1)) {
    keys.push_back(tape.string(i));
  }
  if (keys.size() <= kSmallObject) {
    for (std::size_t i = 1; i < keys.size(); ++i) {
      for (std::size_t j = 0; j < i; ++j) {
        if (keys[i] == keys[j]) return keys[i];
      }
    }
    return std::nullopt;
  }
  std::sort(keys.begin(), keys.end());
  if (const auto it = std::adjacent_find(keys.begin(), keys.end()); it != keys.end()) return *it;
  return std::nullopt;
}

// A container the scan is inside of. An object remembers its last key while its keys increase.
struct OpenContainer {
  std::size_t start = 0;  // the index of its '{' or '['
  bool object = false;
  bool in_order = true;  // false once its keys broke order and it was checked as a whole
  // The last key and its prefix (objects only), kept as separate scalars: copied as one struct,
  // the key went through the stack in pieces and reading it back stalled the scan (store
  // forwarding), which was half of its time.
  std::string_view last_key;
  std::uint64_t last_prefix = 0;
};

// True when the value about to open is request.object.metadata.managedFields or
// request.oldObject.metadata.managedFields: the API server's bookkeeping of who set which field,
// which no decision reads, so a duplicate in it cannot change an answer. It is most of a review's
// keys (60% of the medium benchmark body), so the scan passes over it.
bool is_objects_managed_fields(const std::vector<OpenContainer>& open) {
  return open.size() == 4 && open[3].last_key == "managedFields" &&
         open[2].last_key == "metadata" &&
         (open[1].last_key == "object" || open[1].last_key == "oldObject") &&
         open[0].last_key == "request";
}

}  // namespace

// The API server encodes every object of a custom resource from a Go map, with its keys in
// strictly increasing byte order, which holds no duplicate; an object whose keys break that order
// (the AdmissionReview's own structs, hand-written input) is checked as a whole, once.
//
// The scan reads the tape word by word, in order, keeping a stack of the containers it is in; a
// key is told from a string value by where it stands (first in an object, or after a value).
std::optional<std::string_view> duplicate_key(const simdjson::dom::document& document) {
  const Tape tape(document);
  std::vector<OpenContainer> open;
  open.reserve(32);
  bool expect_key = false;  // the next word is a key, or the end, of the innermost object
  const auto after_value = [&] { expect_key = !open.empty() && open.back().object; };
  for (std::size_t i = 1, last = tape.last(); i < last; ++i) {
    switch (tape.type(i)) {
      case '{':
      case '[':
        if (is_objects_managed_fields(open)) {
          i = tape.after(i) - 1;
          after_value();
          break;
        }
        expect_key = tape.type(i) == '{';
        open.push_back({i, expect_key, true, {}, 0});
        break;
      case '}':
      case ']':
        open.pop_back();
        after_value();
        break;
      case '"': {
        if (!expect_key) {
          after_value();
          break;
        }
        expect_key = false;
        OpenContainer& object = open.back();
        const std::string_view key = tape.string(i);
        const std::string_view previous = object.last_key;
        object.last_key = key;  // kept even out of order: is_objects_managed_fields reads it
        if (!object.in_order) break;
        const std::uint64_t prefix = Tape::prefix_of(key);
        if (i == object.start + 1 || object.last_prefix < prefix ||
            (object.last_prefix == prefix && previous < key)) {
          object.last_prefix = prefix;
          break;
        }
        object.in_order = false;
        if (const auto duplicate = duplicate_in_object(tape, object.start)) return duplicate;
        break;
      }
      case 'l':
      case 'u':
      case 'd':
        ++i;  // the number's own word
        after_value();
        break;
      default:  // true, false, null
        after_value();
        break;
    }
  }
  return std::nullopt;
}

}  // namespace jobset_webhook::admission
