#pragma once

// The Kubernetes API as the controller uses it: get, list, watch, create, update, delete. Client
// (client.h) speaks it to a real API server over HTTPS; tests implement it in memory, so that a
// reconcile, a relist or a Lease step is a table test that runs in milliseconds.
//
// Errors are values: a Failure (status.h) made by api_error, below. Its http_status is the API
// server's HTTP status (403 Forbidden, 404 NotFound, 409 Conflict, also for a failed
// precondition, 410 Gone for an expired resourceVersion, 422, 5xx), or kTransportError when no
// HTTP answer came (connection refused, TLS, timeout, cancelled); its code is what that status
// means to the caller; its message is the Status' message, e.g.
// `jobs.batch "js-workers-3" not found`. An answer that is not JSON is kInternal.

#include <functional>
#include <string>
#include <vector>

#include "jobset_webhook/json.h"
#include "jobset_webhook/result.h"

namespace jobset_webhook::kube {

// The http_status of a Failure for which no HTTP answer came.
inline constexpr int kTransportError = 0;

// The Failure of an API call that got `http_status` (or kTransportError) with `message`, its code
// by what the status means to the caller: kInvalidArgument (400, 422: refused as sent),
// kPermissionDenied (403), kNotFound (404), kAborted (409: re-read and retry), kOutOfRange (410:
// relist), kUnavailable (anything else: kTransportError, 401, 429, 5xx; try again later).
Failure api_error(int http_status, std::string message);

struct ObjectList {
  std::vector<Json> items;
  std::string resource_version;  // the list's metadata.resourceVersion: where a watch starts
};

struct WatchEvent {
  std::string type;  // ADDED, MODIFIED, DELETED, BOOKMARK (ERROR ends the watch as a Failure)
  Json object;
};

struct DeleteOptions {
  std::string propagation_policy;  // "Foreground", "Background", "Orphan" or "" (the default)
  std::string precondition_uid;    // preconditions.uid, or "" for none
};

class Api {
 public:
  virtual ~Api() = default;

  // GET of one object, e.g. "/apis/jobset.x-k8s.io/v1alpha2/namespaces/ns/jobsets/js". Without
  // a resourceVersion, so the API server reads it from etcd (a quorum read): never older than
  // anything a watch has delivered.
  virtual Result<Json> get(const std::string& path) = 0;

  // Every item of a collection, following `continue` in pages of `limit`; label_selector may be
  // empty. The list's resourceVersion is that of the first page, as for client-go's pager.
  virtual Result<ObjectList> list(const std::string& path, const std::string& label_selector = "",
                                  int limit = 500) = 0;

  // Watches `path` from resource_version with allowWatchBookmarks, for at most timeout_seconds
  // (the server ends the stream then). on_event sees each event as it arrives; returning false
  // ends the watch. Returns the last resourceVersion seen (events and bookmarks), or a Failure:
  // kOutOfRange (410) when the server answers or streams "too old resource version" (relist),
  // the status of other ERROR events and HTTP errors, kTransportError (kUnavailable) when the
  // stream breaks or cancel().
  virtual Result<std::string> watch(const std::string& path, const std::string& label_selector,
                                    const std::string& resource_version, int timeout_seconds,
                                    const std::function<bool(const WatchEvent&)>& on_event) = 0;

  virtual Result<Json> create(const std::string& collection_path, const Json& object) = 0;
  virtual Result<Json> update(const std::string& path, const Json& object) = 0;  // PUT
  virtual Result<Json> remove(const std::string& path, const DeleteOptions& options) = 0;
  // A JSON merge patch (RFC 7386, Content-Type application/merge-patch+json): only the keys it
  // names change, a null removes one. A patch that carries metadata.resourceVersion is applied
  // to that version only (409 otherwise); without it, to whatever is stored.
  virtual Result<Json> patch(const std::string& path, const Json& merge_patch) = 0;
  // A JSON Patch (RFC 6902, Content-Type application/json-patch+json): the operations in order,
  // all or none; a failed `test` operation refuses the whole patch (422), which makes it a
  // precondition on any field. When warnings is not null, it receives the texts of the API
  // server's Warning headers of an applied patch (what admission webhooks said of it).
  virtual Result<Json> json_patch(const std::string& path, const Json& operations,
                                  std::vector<std::string>* warnings = nullptr) = 0;

  // Ends every request in flight (watches included) with kTransportError, now and until
  // reset_cancel(); for shutdown and for tests that cut the stream.
  virtual void cancel() = 0;
  virtual void reset_cancel() = 0;
};

// "/api/v1/namespaces/<ns>/<resource>[/<name>]" and "/apis/<group>/<version>/namespaces/...".
std::string core_path(const std::string& ns, const std::string& resource,
                      const std::string& name = "");
std::string group_path(const std::string& group_version, const std::string& ns,
                       const std::string& resource, const std::string& name = "");

}  // namespace jobset_webhook::kube
