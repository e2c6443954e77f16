// read_yaml_stream (cli/yaml_reader_internal.h): YAML text to Json, straight from yaml-cpp's
// parser events. yaml-cpp's own YAML::LoadAll is not used: on some malformed input (a stray ","
// before a flow collection) it loops forever, allocating a null document per turn (yaml-cpp
// issue 1040, fixed after 0.8). Building from events also lets aliases be expanded under a
// budget and keys be checked as they come.

#include <optional>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include "yaml_reader_internal.h"
#include "yaml_scalar_internal.h"
#include "jobset_webhook/field/value.h"
#include "jobset_webhook/patch/json_patch.h"

namespace jobset_webhook::cli {
namespace {

// Json nested deeper than this is refused, so that printing or comparing it later, which
// recurses, cannot exhaust the stack. yaml-cpp's parser has its own, deeper guard.
constexpr std::size_t kMaxYamlDepth = 512;

// Without aliases a YAML text cannot hold more values than it has bytes (plus the root); aliases
// let a few hundred bytes expand to billions ("billion laughs"). What a text may expand to is
// its size plus this much, enough for the odd shared block of a real manifest.
constexpr std::size_t kAliasAllowance = 10000;

std::string position(std::string_view source, const YAML::Mark& mark) {
  return std::string(source) + ":" + std::to_string(mark.line + 1) + ":" +
         std::to_string(mark.column + 1);
}

Mark mark_of(const YAML::Mark& mark) { return {mark.line + 1, mark.column + 1}; }

// Builds Json documents from parser events. The first problem is kept and every later event
// ignored; the caller stops at the end of the document.
class JsonBuilder : public YAML::EventHandler {
 public:
  JsonBuilder(std::string_view source, std::size_t max_values, bool keep_marks)
      : source_(source), max_values_(max_values), keep_marks_(keep_marks) {}

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
    mark_value(mark);
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
  struct Frame {
    Json value;
    YAML::anchor_t anchor;
    std::size_t values_before;  // the count when the collection opened, to size an anchor
    std::optional<std::string> key;
    // Json's ordered map finds keys by a linear search: the set keeps a wide map linear.
    std::unordered_set<std::string> keys;
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
    // yaml-cpp has no YAML 1.1 merge keys, which Kubernetes' reader expands: reading one as a
    // field named "<<" would silently change the manifest.
    if (text == "<<" && tag != "!")
      return fail(mark, "merge keys (<<) are not supported; write the fields out");
    // A key becomes a JSON key as kubectl makes it one: `1.0: x` is the member "1".
    auto resolved = resolve_scalar(tag, text);
    if (!resolved.ok()) return fail(mark, resolved.failure().message);
    auto converted = json_key(resolved.value());
    if (!converted.ok()) return fail(mark, converted.failure().message);
    std::string key = std::move(converted).value();
    Frame& map = stack_.back();
    if (!map.keys.insert(key).second) return fail(mark, "duplicate key " + field::go_quote(key));
    map.key = std::move(key);
    map.key_mark = mark_of(mark);
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
    std::string pointer = parent.pointer;
    if (parent.value.is_array()) {
      patch::append_pointer_token(pointer, std::to_string(parent.value.size()));
      document_.marks.emplace(pointer, mark_of(mark));
    } else {
      patch::append_pointer_token(pointer, *parent.key);
      document_.marks.emplace(pointer, parent.key_mark);
    }
    return pointer;
  }

  void open(const YAML::Mark& mark, Json empty, YAML::anchor_t anchor) {
    if (failure_ || !count(mark, 1) || !not_a_key(mark)) return;
    if (stack_.size() >= kMaxYamlDepth) {
      return fail(mark, "document nested deeper than " + std::to_string(kMaxYamlDepth) + " levels");
    }
    std::string pointer = mark_value(mark);
    stack_.push_back(
        {std::move(empty), anchor, values_ - 1, std::nullopt, {}, std::move(pointer), {}});
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
    top.value.get_ref<Json::object_t&>().emplace_back(std::move(*top.key), std::move(value));
    top.key.reset();
  }

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
  JsonBuilder builder(source, text.size() + kAliasAllowance, keep_marks);
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
