#include "jobset_webhook/kube/reflector.h"

#include <catch2/catch.hpp>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "support/fake_api.h"

using jobset_webhook::Json;
using jobset_webhook::testing::FakeApi;
namespace kube = jobset_webhook::kube;
using namespace std::chrono_literals;

namespace {

const std::string kJobs = "/apis/batch/v1/namespaces/ns/jobs";

Json job(const std::string& name, const std::string& version) {
  return Json{{"metadata", {{"name", name}, {"resourceVersion", version}}}};
}

// What the handlers saw, one line each: "replace a,b" or "ADDED a".
struct Seen {
  std::vector<std::string> lines;
  std::vector<std::string> errors;
  kube::ReflectorHandlers handlers() {
    kube::ReflectorHandlers h;
    h.replace = [this](const std::vector<Json>& items) {
      std::string names;
      for (const auto& i : items)
        names += (names.empty() ? "" : ",") + i["metadata"]["name"].get<std::string>();
      lines.push_back("replace " + names);
    };
    h.event = [this](const kube::WatchEvent& e) {
      lines.push_back(e.type + " " + e.object["metadata"]["name"].get<std::string>());
    };
    h.error = [this](const std::string& what, const jobset_webhook::Failure& f) {
      errors.push_back(what + ": " + std::to_string(f.http_status));
    };
    return h;
  }
};

// Runs the reflector until the fake has answered `watches` watch calls.
void run_until_watches(FakeApi& api, kube::Reflector& r, std::size_t watches) {
  api.after = [&](const std::string& call) {
    if (call.rfind("WATCH ", 0) == 0 && api.watched_from.size() >= watches) r.stop();
  };
  std::thread t([&r] { r.run(); });
  t.join();
}

const kube::Backoff kFast{1ms, 2ms};

}  // namespace

TEST_CASE(
    "The reflector lists, then watches from the list's resourceVersion, and watches again "
    "from the last one seen when the server ends the stream",
    "[kube][reflector]") {
  FakeApi api;
  api.objects[kJobs + "/a"] = job("a", "5");
  api.list_version = "10";
  api.watches = {{{{"ADDED", job("b", "11")}, {"BOOKMARK", job("", "12")}}, std::string("12")},
                 {{{"DELETED", job("a", "13")}}, std::string("13")}};
  Seen seen;
  kube::Reflector r(api, kJobs, "", seen.handlers(), kFast, 60);
  run_until_watches(api, r, 3);
  CHECK(seen.lines == std::vector<std::string>{"replace a", "ADDED b", "DELETED a"});
  CHECK(api.watched_from == std::vector<std::string>{"10", "12", "13"});
  CHECK(r.lists() == 1);
}

TEST_CASE("A 410 Gone sends the reflector back to a full list, which replaces what it had",
          "[kube][reflector]") {
  FakeApi api;
  api.objects[kJobs + "/a"] = job("a", "5");
  api.list_version = "10";
  api.watches = {{{{"ADDED", job("b", "11")}}, jobset_webhook::kube::api_error(410, "too old")},
                 {{}, std::string("20")}};
  Seen seen;
  kube::Reflector r(api, kJobs, "", seen.handlers(), kFast, 60);
  // Between the two lists the server lost b and gained c: only the relist can say so.
  api.after = [&](const std::string& call) {
    if (call == "WATCH " + kJobs && api.watched_from.size() == 1) {
      api.objects[kJobs + "/c"] = job("c", "15");
      api.list_version = "16";
    }
    if (call == "WATCH " + kJobs && api.watched_from.size() >= 2) r.stop();
  };
  std::thread t([&r] { r.run(); });
  t.join();
  CHECK(seen.lines == std::vector<std::string>{"replace a", "ADDED b", "replace a,c"});
  CHECK(api.watched_from == std::vector<std::string>{"10", "16"});
  CHECK(r.lists() == 2);
  CHECK(seen.errors == std::vector<std::string>{"watch " + kJobs + ": 410"});
}

TEST_CASE("Any other watch failure backs off and watches again from the same resourceVersion",
          "[kube][reflector]") {
  FakeApi api;
  api.list_version = "10";
  api.watches = {
      {{{"ADDED", job("b", "11")}}, jobset_webhook::kube::api_error(500, "etcd")},
      {{}, jobset_webhook::kube::api_error(jobset_webhook::kube::kTransportError, "refused")},
      {{}, std::string("11")}};
  Seen seen;
  kube::Reflector r(api, kJobs, "", seen.handlers(), kFast, 60);
  run_until_watches(api, r, 3);
  CHECK(api.watched_from == std::vector<std::string>{"10", "10", "10"});
  CHECK(r.lists() == 1);
  CHECK(seen.errors.size() == 2);
}
