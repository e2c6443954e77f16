#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>

#include "tap_case_reporter.h"
