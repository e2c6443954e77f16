// Precompiled for every test executable (meson's cpp_pch): the headers each test file includes
// and that take most of its compile time. A file still includes what it uses.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <simdjson.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>
