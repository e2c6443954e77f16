#pragma once

// An in-memory kube::Api for table tests of the controller: objects by path, every call it
// received, answers to force, and a hook that changes the world after a call (a JobSet scaled
// back up between two deletions, a Lease lost). Deletes honour preconditions.uid (409), as the
// API server does; a merge patch of "<path>/status" patches the object at <path>. One thread at
// a time.

#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "jobset_webhook/kube/api.h"
#include "jobset_webhook/patch/json_patch.h"

namespace jobset_webhook::testing {

class FakeApi : public kube::Api {
 public:
  std::map<std::string, Json> objects;  // path -> object
  std::vector<std::string> calls;       // "GET <path>", "DELETE <path>", "POST <path>", ...
  std::vector<Json> created;            // bodies of POSTs
  std::vector<kube::DeleteOptions> deletes;
  std::vector<Json> patches;                // bodies of PATCHes
  std::vector<std::string> patch_warnings;  // what an applied JSON patch is answered with
  // "<METHOD> <path>" -> the failure to answer instead.
  std::map<std::string, Failure> failures;
  // Runs after each call, with the call's "<METHOD> <path>".
  std::function<void(const std::string& call)> after;

  // What each watch call does, in order: deliver `events`, then end with `end` (a resourceVersion:
  // the server closed the stream; a Failure: 410 Gone, a broken stream, ...). A watch with no
  // script left ends at once with a transport error.
  struct WatchScript {
    std::vector<kube::WatchEvent> events;
    Result<std::string> end = std::string();
  };
  std::vector<WatchScript> watches;
  std::vector<std::string> watched_from;  // the resourceVersion each watch started from
  std::string list_version = "1";         // the resourceVersion a list answers with

  Result<Json> get(const std::string& path) override {
    const std::string call = "GET " + path;
    Result<Json> out = answer(call);
    if (out.ok()) {
      const auto it = objects.find(path);
      out = it == objects.end() ? Result<Json>(kube::api_error(404, "not found: " + path))
                                : it->second;
    }
    return finish(call, std::move(out));
  }

  Result<kube::ObjectList> list(const std::string& path, const std::string&, int) override {
    calls.push_back("LIST " + path);
    kube::ObjectList out;
    for (const auto& [p, o] : objects) {
      if (p.rfind(path + "/", 0) == 0) out.items.push_back(o);
    }
    out.resource_version = list_version;
    if (after) after("LIST " + path);
    return out;
  }

  Result<std::string> watch(const std::string& path, const std::string&,
                            const std::string& resource_version, int,
                            const std::function<bool(const kube::WatchEvent&)>& on_event) override {
    calls.push_back("WATCH " + path);
    watched_from.push_back(resource_version);
    const std::size_t n = watched_from.size() - 1;
    Result<std::string> end = kube::api_error(kube::kTransportError, "no watch scripted");
    if (n < watches.size()) {
      for (const auto& e : watches[n].events) {
        if (!on_event(e)) return resource_version;
      }
      end = watches[n].end;
    }
    if (after) after("WATCH " + path);
    return end;
  }

  Result<Json> create(const std::string& collection_path, const Json& object) override {
    const std::string call = "POST " + collection_path;
    Result<Json> out = answer(call);
    if (out.ok()) {
      created.push_back(object);
      out = object;
    }
    return finish(call, std::move(out));
  }

  Result<Json> update(const std::string& path, const Json& object) override {
    const std::string call = "PUT " + path;
    Result<Json> out = answer(call);
    if (out.ok()) {
      objects[path] = object;
      out = object;
    }
    return finish(call, std::move(out));
  }

  Result<Json> remove(const std::string& path, const kube::DeleteOptions& options) override {
    const std::string call = "DELETE " + path;
    deletes.push_back(options);
    Result<Json> out = answer(call);
    if (out.ok()) {
      const auto it = objects.find(path);
      if (it == objects.end()) {
        out = kube::api_error(404, "not found: " + path);
      } else if (!options.precondition_uid.empty() &&
                 it->second["metadata"].value("uid", "") != options.precondition_uid) {
        out = kube::api_error(
            409, "Precondition failed: UID in precondition: " + options.precondition_uid);
      } else {
        out = it->second;
        objects.erase(it);
      }
    }
    return finish(call, std::move(out));
  }

  // Merges the patch into the stored object (RFC 7386); a metadata.resourceVersion in the patch
  // must equal the stored one (409), as the API server checks it. The stored object's
  // resourceVersion then counts up by one.
  Result<Json> patch(const std::string& path, const Json& merge_patch) override {
    const std::string call = "PATCH " + path;
    patches.push_back(merge_patch);
    Result<Json> out = answer(call);
    if (out.ok()) {
      const auto it = objects.find(object_of(path));
      const Json* want = merge_patch.contains("metadata") ? &merge_patch["metadata"] : nullptr;
      if (it == objects.end()) {
        out = kube::api_error(404, "not found: " + path);
      } else if (want != nullptr && want->contains("resourceVersion") &&
                 (*want)["resourceVersion"] !=
                     it->second["metadata"].value("resourceVersion", "")) {
        out = kube::api_error(409, "the object has been modified");
      } else {
        Json patch = merge_patch;
        if (want != nullptr) patch["metadata"].erase("resourceVersion");
        it->second.merge_patch(patch);
        const std::string rv = it->second["metadata"].value("resourceVersion", "0");
        it->second["metadata"]["resourceVersion"] = std::to_string(std::stoll(rv) + 1);
        out = it->second;
      }
    }
    return finish(call, std::move(out));
  }

  // Applies the operations to the stored object with patch::apply; a failed `test` is a 422, as
  // the API server answers it. The stored object's resourceVersion then counts up by one. An
  // applied patch answers patch_warnings as the API server's Warning headers.
  Result<Json> json_patch(const std::string& path, const Json& operations,
                          std::vector<std::string>* warnings = nullptr) override {
    const std::string call = "PATCH " + path;
    patches.push_back(operations);
    Result<Json> out = answer(call);
    if (out.ok()) {
      const auto it = objects.find(path);
      if (it == objects.end()) {
        out = kube::api_error(404, "not found: " + path);
      } else if (auto patched = patch::apply(it->second, operations); !patched.ok()) {
        out = kube::api_error(422, patched.failure().message);
      } else {
        it->second = std::move(patched).value();
        const std::string rv = it->second["metadata"].value("resourceVersion", "0");
        it->second["metadata"]["resourceVersion"] = std::to_string(std::stoll(rv) + 1);
        out = it->second;
        if (warnings != nullptr) *warnings = patch_warnings;
      }
    }
    return finish(call, std::move(out));
  }

  void cancel() override {}
  void reset_cancel() override {}

  // The calls of one method, in order ("DELETE" -> paths).
  std::vector<std::string> paths_of(const std::string& method) const {
    std::vector<std::string> out;
    for (const auto& c : calls) {
      if (c.rfind(method + " ", 0) == 0) out.push_back(c.substr(method.size() + 1));
    }
    return out;
  }

 private:
  // The object a path names: "<object>/status" is the object's status subresource.
  static std::string object_of(const std::string& path) {
    const std::string status = "/status";
    return path.size() > status.size() && path.ends_with(status)
               ? path.substr(0, path.size() - status.size())
               : path;
  }

  Result<Json> answer(const std::string& call) {
    calls.push_back(call);
    const auto it = failures.find(call);
    if (it != failures.end()) return it->second;
    return Json();
  }

  Result<Json> finish(const std::string& call, Result<Json> out) {
    if (after) after(call);
    return out;
  }
};

}  // namespace jobset_webhook::testing
