#pragma once

// How a daemon (serve, scale-down-controller) stops: the first SIGTERM or SIGINT starts a graceful
// stop, a second one ends the process at once.

#include <string>

namespace jobset_webhook::runtime {

class TerminationSignals {
 public:
  // Blocks SIGTERM and SIGINT in the calling thread, and so in every thread it starts afterwards:
  // construct it in main's thread before any other thread starts, so that the signals are left to
  // wait().
  TerminationSignals();

  // Waits for the first signal and returns its name, "SIGTERM" or "SIGINT". From then on a second
  // one takes its default action on this thread: the process ends at once.
  std::string wait();
};

}  // namespace jobset_webhook::runtime
