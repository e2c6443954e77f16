// read_yaml_stream (cli/yaml_reader_internal.h): YAML text to Json, straight from yaml-cpp's
// parser events. yaml-cpp's own YAML::LoadAll is not used: on some malformed input (a stray ","
// before a flow collection) it loops forever, allocating a null document per turn (yaml-cpp
// issue 1040, fixed after 0.8). Building from events also lets aliases be expanded under a
// budget and keys be checked as they come.

#include <optional>
#include <sstream>
#include <unordered_map>

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include "yaml_reader_internal.h"
#include "yaml_scalar_internal.h"
#include "jobset_webhook/field/value.h"
#include "jobset_webhook/json_pointer.h"

namespace jobset_webhook::cli {
namespace {

// Json nested deeper than this is refused, so that printing or comparing it later, which
// recurses, cannot exhaust the stack. yaml-cpp's parser has its own, deeper guard.
constexpr std::size_t kMaxYamlDepth = 512;

// Without aliases a YAML text cannot hold more values than it has bytes (plus the root); aliases
// let a few hundred bytes expand to billions ("billion laughs"). What a text may expand to is
// its size plus this much, enough for the odd shared block of a real manifest.
constexpr std::size_t kAliasAllowance = 10000;

// The tag of `!!merge <<`; a plain `<<` is a merge key too (go-yaml v2's isMerge, decode.go).
constexpr std::string_view kMergeTag = "tag:yaml.org,2002:merge";
// go-yaml v2's message for a merge of anything but a mapping or a list of them (failWantMap).
constexpr std::string_view kMergeWantsMaps =
    "map merge requires map or sequence of maps as the value";

std::string position(std::string_view source, const YAML::Mark& mark) {
  return std::string(source) + ":" + std::to_string(mark.line + 1) + ":" +
         std::to_string(mark.column + 1);
}

Mark mark_of(const YAML::Mark& mark) { return {mark.line + 1, mark.column + 1}; }

// LocatedDocument::literal_blocks' mark for the string value whose node starts at mark in text:
// nullopt unless the node is a `|` block whose every non-empty line is, in text, that many lines
// after the indicator's behind one run of spaces (the block's indentation). yaml-cpp reports
// neither a scalar's style nor its indentation: both are read off the text, checked against the
// value, so a block that does not map line for line is never given a mark.
std::optional<Mark> literal_block_origin(std::string_view text, const YAML::Mark& mark,
                                         std::string_view value) {
  constexpr auto npos = std::string_view::npos;
  if (mark.pos < 0 || static_cast<std::size_t>(mark.pos) >= text.size() || text[mark.pos] != '|')
    return std::nullopt;
  std::size_t end = text.find('\n', mark.pos);  // of the line before the next
  std::optional<std::size_t> indent;
  // Lines past the last one with text need no counterpart (a kept final line break at the end of
  // the stream has none).
  const std::size_t last = value.find_last_not_of('\n');
  for (std::size_t from = 0; last != npos && from <= last;) {
    if (end == npos) return std::nullopt;
    const std::size_t begin = end + 1;
    end = text.find('\n', begin);
    const std::string_view line = text.substr(begin, end == npos ? npos : end - begin);
    const std::size_t to = std::min(value.find('\n', from), value.size());
    const std::string_view want = value.substr(from, to - from);
    from = to + 1;
    if (want.empty()) continue;
    if (!indent) indent = line.size() - std::min(line.size(), want.size());
    if (line.size() != *indent + want.size() || line.substr(*indent) != want ||
        line.substr(0, *indent).find_first_not_of(' ') != npos)
      return std::nullopt;
  }
  if (!indent) return std::nullopt;
  return Mark{mark.line + 2, static_cast<int>(*indent) + 1};
}

// Builds Json documents from parser events. The first problem is kept and every later event
// ignored; the caller stops at the end of the document.
class JsonBuilder : public YAML::EventHandler {
 public:
  JsonBuilder(std::string_view text, std::string_view source, std::size_t max_values,
              bool keep_marks)
      : text_(text), source_(source), max_values_(max_values), keep_marks_(keep_marks) {}

  const std::optional<Failure>& failure() const { return failure_; }
  std::vector<LocatedDocument>& documents() { return documents_; }

  void OnDocumentStart(const YAML::Mark& mark) override {
    // The LoadAll bug: a document that starts where the previous one did consumed nothing.
    if (last_start_ && *last_start_ == mark.pos) fail(mark, "not valid YAML here");
    last_start_ = mark.pos;
    document_ = {};
    anchors_.clear();  // anchors belong to their document
  }

  void OnDocumentEnd() override {
    if (!failure_ && !document_.value.is_null()) documents_.push_back(std::move(document_));
  }

  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    if (failure_ || !count(mark, 1) || !not_a_key(mark)) return;
    mark_value(mark);
    complete(nullptr, anchor, 1);
  }

  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    if (failure_ || !not_a_key(mark)) return;
    const auto it = anchors_.find(anchor);
    // An alias inside its own anchor would be a cycle, which JSON cannot hold.
    if (it == anchors_.end()) return fail(mark, "an alias refers to a node that contains it");
    if (!count(mark, it->second.values)) return;
    mark_value(mark);
    complete(it->second.value, 0, it->second.values);
  }

  void OnScalar(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                const std::string& value) override {
    if (failure_ || !count(mark, 1)) return;
    // YAML is Unicode; yaml-cpp passes invalid bytes through, Kubernetes' reader refuses them.
    if (!simdjson::validate_utf8(value.data(), value.size())) return fail(mark, "not valid UTF-8");
    if (awaiting_key()) return take_key(mark, tag, value);
    // Typed as kubectl types it (yaml_scalar_internal.h), refused where kubectl refuses it.
    auto resolved = resolve_scalar(tag, value);
    if (!resolved.ok()) return fail(mark, resolved.failure().message);
    auto json = json_value(resolved.value());
    if (!json.ok()) return fail(mark, json.failure().message);
    const std::string pointer = mark_value(mark);
    if (keep_marks_ && pointer != "#") {
      // A repeated key's earlier value may have been a block: the last value is the one kept.
      if (auto origin = literal_block_origin(text_, mark, value)) {
        document_.literal_blocks.insert_or_assign(pointer, *origin);
      } else {
        document_.literal_blocks.erase(pointer);
      }
    }
    complete(std::move(json).value(), anchor, 1);
  }

  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    open(mark, Json::array(), anchor);
  }
  void OnSequenceEnd() override { close(); }

  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    open(mark, Json::object(), anchor);
  }
  void OnMapEnd() override { close(); }

 private:
  struct KeyEntry {
    std::string typed;  // empty for a key set by a merge, whose go-yaml type is not kept
    std::size_t index;
  };
  struct Frame {
    Json value;
    YAML::anchor_t anchor;
    std::size_t values_before;  // the count when the collection opened, to size an anchor
    std::optional<std::string> key;
    // The JSON member each key so far became: the key as go-yaml types it ("5:\"a\"" for the
    // string a), which tells a repeated key from two keys that only convert to one member, and
    // the member's index. Json's ordered map finds keys by a linear search: this keeps a wide map,
    // and a map whose keys repeat, linear.
    std::unordered_map<std::string, KeyEntry> keys;
    // The pending key repeats the member at this index, whose value it replaces.
    std::optional<std::size_t> replaces;
    // The pending key is a merge key (<<), written at merge_mark.
    bool merging = false;
    YAML::Mark merge_mark;
    // With marks: the collection's JSON pointer, and where the pending key is written.
    std::string pointer;
    Mark key_mark;
  };
  struct Anchored {
    Json value;
    std::size_t values;
  };

  void fail(const YAML::Mark& mark, const std::string& message) {
    if (!failure_) failure_ = invalid_argument(position(source_, mark) + ": " + message);
  }

  bool count(const YAML::Mark& mark, std::size_t values) {
    values_ += values;
    if (values_ <= max_values_) return true;
    (void)mark;  // the budget is the stream's, not a place in it
    failure_ = resource_exhausted(std::string(source_) + ": aliases expand the YAML to more than " +
                                  std::to_string(max_values_) + " values");
    return false;
  }

  bool awaiting_key() const {
    return !stack_.empty() && stack_.back().value.is_object() && !stack_.back().key;
  }

  bool not_a_key(const YAML::Mark& mark) {
    if (!awaiting_key()) return true;
    fail(mark, "mapping keys must be strings, numbers or booleans");
    return false;
  }

  void take_key(const YAML::Mark& mark, const std::string& tag, const std::string& text) {
    Frame& map = stack_.back();
    // yaml-cpp has no YAML 1.1 merge keys; go-yaml v2 merges a plain or !!merge-tagged `<<`
    // (isMerge), a quoted one is a key like any other.
    if (text == "<<" && (tag == "?" || tag == kMergeTag)) {
      map.key = std::string();
      map.merging = true;
      map.merge_mark = mark;
      map.key_mark = mark_of(mark);
      return;
    }
    // A key becomes a JSON key as kubectl makes it one: `1.0: x` is the member "1".
    auto resolved = resolve_scalar(tag, text);
    if (!resolved.ok()) return fail(mark, resolved.failure().message);
    auto converted = json_key(resolved.value());
    if (!converted.ok()) return fail(mark, converted.failure().message);
    std::string key = std::move(converted).value();
    const std::string typed = std::to_string(static_cast<int>(resolved.value().tag)) + ":" +
                              resolved.value().value.dump();
    const auto [seen, first] = map.keys.try_emplace(key, KeyEntry{typed, map.value.size()});
    if (!first) {
      // go-yaml v2's Unmarshal (not UnmarshalStrict) sets a repeated key again: the last value
      // wins (decoder.setMapIndex). Two different keys that convert to one JSON member (`1` and
      // "1") are two Go map entries, and convertToJSONableObject (sigs.k8s.io/yaml) keeps
      // whichever its map iteration meets last: kubectl's result is random, so it is refused.
      if (!seen->second.typed.empty() && seen->second.typed != typed) {
        return fail(mark, "two keys of this mapping become the JSON member " +
                              field::go_quote(key) +
                              "; kubectl keeps one of them at random: write one key");
      }
      seen->second.typed = typed;
      map.replaces = seen->second.index;
    }
    map.key = std::move(key);
    map.key_mark = mark_of(mark);
  }

  // go-yaml v2's merge (decoder.merge): the members of a mapping, or of each mapping of a list,
  // set into the mapping that holds the `<<` as if written there: over the keys before it, under
  // those after it; of a list, the earlier mappings win. Nothing is merged deeper than that.
  void merge(Frame& map, const Json& value) {
    std::vector<const Json*> sources;
    if (value.is_object()) {
      sources.push_back(&value);
    } else if (!value.is_array()) {
      return fail(map.merge_mark, std::string(kMergeWantsMaps));
    }
    for (std::size_t i = value.is_array() ? value.size() : 0; i > 0; --i) {
      if (!value[i - 1].is_object()) return fail(map.merge_mark, std::string(kMergeWantsMaps));
      sources.push_back(&value[i - 1]);
    }
    for (const Json* source : sources) {
      for (const auto& [key, member] : source->items()) {
        // A merged key's go-yaml type is not kept: a later key of any type replaces it.
        auto& members = map.value.get_ref<Json::object_t&>();
        const auto [seen, first] = map.keys.try_emplace(key, KeyEntry{"", members.size()});
        if (first) {
          members.emplace_back(key, member);
        } else {
          seen->second.typed.clear();
          (members.begin() + static_cast<std::ptrdiff_t>(seen->second.index))->second = member;
        }
        if (keep_marks_) {
          std::string pointer = map.pointer;
          append_pointer_token(pointer, key);
          document_.marks.insert_or_assign(pointer, map.key_mark);
        }
      }
    }
  }

  // Records where the value that begins now is written: a mapping member at its key, a list
  // element at its first character, the document at its root. Returns the value's pointer.
  std::string mark_value(const YAML::Mark& mark) {
    if (!keep_marks_) return {};
    if (stack_.empty()) {
      document_.marks.emplace("", mark_of(mark));
      return {};
    }
    const Frame& parent = stack_.back();
    // What a merge key's value holds is marked where it is merged (merge): "#" is no pointer.
    if (parent.merging || parent.pointer.starts_with('#')) return "#";
    std::string pointer = parent.pointer;
    if (parent.value.is_array()) {
      append_pointer_token(pointer, std::to_string(parent.value.size()));
      document_.marks.emplace(pointer, mark_of(mark));
    } else {
      // A repeated key is marked where it is written last, as its value is the last one.
      append_pointer_token(pointer, *parent.key);
      document_.marks.insert_or_assign(pointer, parent.key_mark);
    }
    return pointer;
  }

  void open(const YAML::Mark& mark, Json empty, YAML::anchor_t anchor) {
    if (failure_ || !count(mark, 1) || !not_a_key(mark)) return;
    if (stack_.size() >= kMaxYamlDepth) {
      return fail(mark, "document nested deeper than " + std::to_string(kMaxYamlDepth) + " levels");
    }
    std::string pointer = mark_value(mark);
    Frame frame;
    frame.value = std::move(empty);
    frame.anchor = anchor;
    frame.values_before = values_ - 1;
    frame.pointer = std::move(pointer);
    stack_.push_back(std::move(frame));
  }

  void close() {
    if (failure_) return;
    Frame frame = std::move(stack_.back());
    stack_.pop_back();
    complete(std::move(frame.value), frame.anchor, values_ - frame.values_before);
  }

  // A finished value: the document root, the next item of a sequence, or the value of the
  // pending key of a map.
  void complete(Json value, YAML::anchor_t anchor, std::size_t values) {
    if (anchor != 0) anchors_[anchor] = {value, values};
    if (stack_.empty()) {
      document_.value = std::move(value);
      return;
    }
    Frame& top = stack_.back();
    if (top.value.is_array()) {
      top.value.push_back(std::move(value));
      return;
    }
    if (top.merging) {
      top.merging = false;
      top.key.reset();
      return merge(top, value);
    }
    auto& members = top.value.get_ref<Json::object_t&>();
    if (top.replaces) {
      (members.begin() + static_cast<std::ptrdiff_t>(*top.replaces))->second = std::move(value);
    } else {
      members.emplace_back(std::move(*top.key), std::move(value));
    }
    top.key.reset();
    top.replaces.reset();
  }

  std::string_view text_;
  std::string_view source_;
  std::size_t max_values_;
  bool keep_marks_;
  std::size_t values_ = 0;
  std::optional<Failure> failure_;
  std::optional<int> last_start_;
  std::vector<Frame> stack_;
  std::unordered_map<YAML::anchor_t, Anchored> anchors_;
  LocatedDocument document_;
  std::vector<LocatedDocument> documents_;
};

}  // namespace

Result<std::vector<LocatedDocument>> read_yaml_stream(std::string_view text,
                                                      std::string_view source, bool keep_marks) {
  JsonBuilder builder(text, source, text.size() + kAliasAllowance, keep_marks);
  try {
    std::istringstream stream{std::string(text)};
    YAML::Parser parser(stream);
    while (!builder.failure() && parser.HandleNextDocument(builder)) {
    }
  } catch (const YAML::DeepRecursion& e) {
    // yaml-cpp's parser recurses and stops itself at a depth of its own (a few hundred levels),
    // with the unhelpful message "bad file".
    return invalid_argument(position(source, e.mark) + ": document nested too deeply");
  } catch (const YAML::Exception& e) {
    return invalid_argument(position(source, e.mark) + ": " + e.msg);
  } catch (const std::exception& e) {
    return invalid_argument(std::string(source) + ": " + e.what());
  }
  if (builder.failure()) return *builder.failure();
  return std::move(builder.documents());
}

}  // namespace jobset_webhook::cli
