#pragma once

// A path to a field, printed as apimachinery's field.Path prints it:
//   field::Path("spec").child("replicatedJobs").index(1).child("name") -> spec.replicatedJobs[1].name
//   field::Path("metadata").child("labels").key("app")                -> metadata.labels[app]
// Map keys are printed unquoted, as upstream does. A default-constructed Path is empty and prints
// as "<nil>", the way Go prints an error that names no field.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace jobset_webhook::field {

class Path {
 public:
  Path() = default;
  explicit Path(std::string_view root);

  // Copies with one more segment. child() takes several names for a run of struct fields.
  template <typename... Names>
  [[nodiscard]] Path child(std::string_view name, Names... more) const {
    Path p = *this;
    p.push_child(name);
    (p.push_child(more), ...);
    return p;
  }
  [[nodiscard]] Path index(std::size_t i) const;
  [[nodiscard]] Path key(std::string_view k) const;

  // In-place variants for walkers that descend and come back, so that a deep diff does not copy
  // the whole path at every level.
  void push_child(std::string_view name);
  void push_index(std::size_t i);
  void push_key(std::string_view k);
  void pop();

  bool empty() const { return segments_.empty(); }
  std::string to_string() const;
  // As kube-openapi's validators write it, in the API server's errors from a CRD's schema: a map
  // key as a field, metadata.labels.app, resources.limits.nvidia.com/gpu.
  std::string to_openapi_string() const;

 private:
  enum class SegmentKind { kChild, kIndex, kKey };
  struct Segment {
    SegmentKind kind;
    std::string name;  // field name or map key; empty for an index
    std::size_t index = 0;
  };
  std::vector<Segment> segments_;
};

}  // namespace jobset_webhook::field
