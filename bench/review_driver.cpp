// Answers one AdmissionReview body N times with admission::handle_review and nothing else, so
// that a profiler sees only the decision: the parser's buffers are warm after the first call,
// as in a serving thread. With --parse-only it does what handle_review does first and nothing
// more: the simdjson parse of the body, the floor the decision is measured against.
//
// Usage: review_driver [--parse-only] BODY.json [N]      (N defaults to 200)
//   valgrind --tool=callgrind build-bench/bench/review_driver build-bench/bench/medium-update-replicas.json
// scripts/bench-instructions counts instructions per review with it.

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <string_view>

#include "jobset_webhook/admission/review.h"

int main(int argc, char** argv) {
  int arg = 1;
  const bool parse_only = argc > arg && std::string_view(argv[arg]) == "--parse-only";
  if (parse_only) ++arg;
  if (argc <= arg) {
    std::cerr << "usage: review_driver [--parse-only] BODY.json [N]\n";
    return 2;
  }
  std::ifstream in(argv[arg], std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  const std::string body = text.str();
  const long n = argc > arg + 1 ? std::strtol(argv[arg + 1], nullptr, 10) : 200;
  const jobset_webhook::Policy policy;
  simdjson::dom::parser parser;
  std::size_t bytes = 0;
  for (long i = 0; i < n; ++i) {
    if (parse_only) {
      jobset_webhook::JsonView root;
      if (parser.parse(body.data(), body.size()).get(root) != simdjson::SUCCESS) {
        std::cerr << "review_driver: not JSON\n";
        return 2;
      }
      continue;
    }
    const auto response =
        jobset_webhook::admission::handle_review(body, policy, jobset_webhook::Hook::kValidating);
    if (!response.ok()) {
      std::cerr << "review_driver: " << response.failure().message << "\n";
      return 2;
    }
    bytes = response.value().size();
  }
  std::cout << n << " " << (parse_only ? "parses" : "reviews") << " of " << body.size() << " bytes";
  if (!parse_only) std::cout << ", " << bytes << " response bytes each";
  std::cout << "\n";
  return 0;
}
