// In-process benchmarks of the hot path, for every generated review body
// (scripts/gen-bench-bodies):
//   simdjson_parse  simdjson's DOM parse alone, as handle_review calls it: the floor of the design
//   nlohmann_parse  nlohmann::json::parse of the same bytes: what a typical C++ webhook pays
//   handle_review   the whole decision, request bytes to response bytes
// Each reports bytes of request per second; scripts/bench-ratios turns the JSON output into the
// ratios that issue 8 sets targets for.
//
// Usage: review_benchmark [--benchmark_* flags] [BODIES_DIR]

#include <benchmark/benchmark.h>

#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "jobset_webhook/admission/review.h"
#include "jobset_webhook/json.h"

namespace {

namespace jw = jobset_webhook;

struct Body {
  std::string name;  // "medium-update-replicas"
  std::string bytes;
  bool expect_allowed;  // what the decision must say, checked before timing
};

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

void set_bytes(benchmark::State& state, const Body& body) {
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(body.bytes.size()));
  state.counters["body_bytes"] = static_cast<double>(body.bytes.size());
}

void simdjson_parse(benchmark::State& state, const Body* body) {
  simdjson::dom::parser parser;  // reused between iterations, as handle_review's is per thread
  for (auto _ : state) {
    jw::JsonView root;
    if (parser.parse(body->bytes.data(), body->bytes.size()).get(root) != simdjson::SUCCESS) {
      state.SkipWithError("simdjson refused the body");
      break;
    }
    benchmark::DoNotOptimize(root);
  }
  set_bytes(state, *body);
}

void nlohmann_parse(benchmark::State& state, const Body* body) {
  for (auto _ : state) {
    auto doc = nlohmann::json::parse(body->bytes, nullptr, /*allow_exceptions=*/false);
    if (doc.is_discarded()) {
      state.SkipWithError("nlohmann refused the body");
      break;
    }
    benchmark::DoNotOptimize(doc);
  }
  set_bytes(state, *body);
}

void handle_review(benchmark::State& state, const Body* body) {
  const jw::Policy policy;
  // A benchmark of the wrong path (a 400, or a decision that differs from the case's) measures
  // nothing useful: check the answer once, untimed.
  const auto first = jw::admission::handle_review(body->bytes, policy, jw::Hook::kValidating);
  const std::string want = body->expect_allowed ? "\"allowed\":true" : "\"allowed\":false";
  if (!first.ok() || first.value().find(want) == std::string::npos ||
      (!body->expect_allowed && first.value().find("\"code\":422") == std::string::npos)) {
    state.SkipWithError(("unexpected decision for " + body->name).c_str());
    return;
  }
  for (auto _ : state) {
    auto response = jw::admission::handle_review(body->bytes, policy, jw::Hook::kValidating);
    benchmark::DoNotOptimize(response);
  }
  set_bytes(state, *body);
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  // simdjson picks its kernel for the CPU at run time (icelake with AVX-512, haswell with AVX2,
  // ...); under valgrind it sees a CPU without AVX-512. Say which one was measured.
  benchmark::AddCustomContext("simdjson_implementation",
                              simdjson::get_active_implementation()->name());
  const std::string dir = argc > 1 ? argv[1] : JOBSET_BENCH_BODIES_DIR;
  std::vector<Body> bodies;
  for (const char* size : {"small", "medium", "large"}) {
    for (const char* kase : {"update-replicas", "update-image", "create"}) {
      const std::string name = std::string(size) + "-" + kase;
      std::string bytes = read_file(dir + "/" + name + ".json");
      if (bytes.empty()) {
        std::cerr << "review_benchmark: cannot read " << dir << "/" << name
                  << ".json (run scripts/gen-bench-bodies)\n";
        return 2;
      }
      bodies.push_back({name, std::move(bytes), std::string_view(kase) != "update-image"});
    }
  }
  for (const auto& body : bodies) {
    benchmark::RegisterBenchmark(("simdjson_parse/" + body.name).c_str(), simdjson_parse, &body);
    benchmark::RegisterBenchmark(("nlohmann_parse/" + body.name).c_str(), nlohmann_parse, &body);
    benchmark::RegisterBenchmark(("handle_review/" + body.name).c_str(), handle_review, &body);
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
