#pragma once

// `jobset-webhook serve` as a process: serves until SIGTERM or SIGINT, then shuts down gracefully
// (server.h): options.shutdown_delay of draining, then options.shutdown_grace for the requests in
// flight. A second signal during the shutdown ends the process at once.

#include "jobset_webhook/exit_codes.h"
#include "jobset_webhook/runtime/log.h"
#include "jobset_webhook/server/options.h"

namespace jobset_webhook::server {

// Must be called before the process starts any thread: it blocks SIGTERM and SIGINT so that every
// thread it starts leaves them to the waiting one. Returns the process exit code (exit_codes.h):
// kExitOk after a clean shutdown, kExitFailed when it could not listen or the grace period ran
// out, kExitUnusableInput when the TLS files are unusable.
int run(const ServerOptions& options, const runtime::Log& log);

}  // namespace jobset_webhook::server
