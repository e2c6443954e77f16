#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
// Catch2 v2 registers its TAP reporter (`-r tap`, read by `meson test`) only where this is included.
#include <catch2/catch_reporter_tap.hpp>
