#include "jobset_webhook/server/run.h"

#include <malloc.h>

#include <cstdio>
#include <cstdlib>

#include "jobset_webhook/admission/review.h"
#include "jobset_webhook/runtime/signals.h"
#include "server.h"

namespace jobset_webhook::server {

namespace {

// glibc raises its mmap threshold to the size of each large block freed (up to 32 MiB) and its
// trim threshold to twice that, so after a burst of large bodies the big buffers come from the
// thread arenas, whose free top (up to 64 MiB each) malloc_trim does not give back: `serve` kept
// some 47 MiB after the rounds of tests/server/memory_test. Fixed thresholds turn that off: a
// block of a large body's size is mapped and unmapped on its own, and a free top over twice that
// is returned at once.
void bound_allocator_retention() {
  ::mallopt(M_MMAP_THRESHOLD, static_cast<int>(admission::kLargeBodyBytes));
  ::mallopt(M_TRIM_THRESHOLD, static_cast<int>(2 * admission::kLargeBodyBytes));
}

}  // namespace

int run(const ServerOptions& options, const runtime::Log& log) {
  bound_allocator_retention();
  runtime::TerminationSignals signals;

  auto server = AdmissionServer::start(options, log);
  if (!server.ok()) {
    log.error("cannot serve", {{"error", server.failure().message}});
    return exit_code(server.failure());
  }
  log.info("received signal", {{"signal", signals.wait()}});
  if (!server.value()->shutdown(options.shutdown_delay, options.shutdown_grace)) {
    // Threads still serve stuck connections; destroying the server would wait for them.
    std::fflush(nullptr);
    std::_Exit(kExitFailed);
  }
  return kExitOk;
}

}  // namespace jobset_webhook::server
