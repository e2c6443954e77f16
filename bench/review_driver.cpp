// Answers one AdmissionReview body N times with admission::handle_review and nothing else, so
// that a profiler sees only the decision: the parser's buffers are warm after the first call,
// as in a serving thread.
//
// Usage: review_driver BODY.json [N]      (N defaults to 200)
//   valgrind --tool=callgrind build-bench/bench/review_driver build-bench/bench/medium-update-replicas.json

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "jobset_webhook/admission/review.h"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: review_driver BODY.json [N]\n";
    return 2;
  }
  std::ifstream in(argv[1], std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  const std::string body = text.str();
  const long n = argc > 2 ? std::strtol(argv[2], nullptr, 10) : 200;
  const jobset_webhook::Policy policy;
  std::size_t bytes = 0;
  for (long i = 0; i < n; ++i) {
    const auto response = jobset_webhook::admission::handle_review(body, policy, jobset_webhook::Hook::kValidating);
    if (!response.ok()) {
      std::cerr << "review_driver: " << response.failure().message << "\n";
      return 2;
    }
    bytes = response.value().size();
  }
  std::cout << n << " reviews of " << body.size() << " bytes, " << bytes << " response bytes each\n";
  return 0;
}
