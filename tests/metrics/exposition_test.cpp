#include "jobset_webhook/metrics/exposition.h"

#include <catch2/catch.hpp>
#include <chrono>
#include <cmath>

#include "jobset_webhook/metrics/histogram.h"
#include "support/prometheus.h"

namespace m = jobset_webhook::metrics;
namespace t = jobset_webhook::testing;
using namespace std::chrono_literals;

TEST_CASE("Label values escape backslash, double quote and newline, and nothing else",
          "[metrics][exposition]") {
  CHECK(m::escape_label_value(R"(C:\certs\"tls".crt)") == R"(C:\\certs\\\"tls\".crt)");
  CHECK(m::escape_label_value("a\nb") == R"(a\nb)");
  CHECK(m::escape_label_value("tab\there {x=1} é") == "tab\there {x=1} é");
  CHECK(m::escape_help("a \"quoted\" \\ word\nnext") == R"(a "quoted" \\ word\nnext)");
}

TEST_CASE("Values are integers as integers, others in their shortest form",
          "[metrics][exposition]") {
  CHECK(m::format_value(std::uint64_t{18446744073709551615u}) == "18446744073709551615");
  CHECK(m::format_value(3.0) == "3");
  CHECK(m::format_value(0.005) == "0.005");
  CHECK(m::format_value(1e-05) == "1e-05");
  CHECK(m::format_value(HUGE_VAL) == "+Inf");
  CHECK(m::format_value(-HUGE_VAL) == "-Inf");
  CHECK(m::format_value(std::nan("")) == "NaN");
}

TEST_CASE("A family is HELP, TYPE and its samples, with labels in the order given",
          "[metrics][exposition]") {
  m::Exposition out;
  out.family("files_total", "counter", "Files read.\nOne line per file \\ path.");
  out.sample("files_total", {{"file", "/etc/\"x\"\n"}, {"ok", "true"}}, std::uint64_t{2});
  out.sample("files_total", {}, 0.5);
  CHECK(out.text() ==
        "# HELP files_total Files read.\\nOne line per file \\\\ path.\n"
        "# TYPE files_total counter\n"
        "files_total{file=\"/etc/\\\"x\\\"\\n\",ok=\"true\"} 2\n"
        "files_total 0.5\n");
  const auto parsed = t::parse_prometheus(out.text());
  REQUIRE(parsed.error == "");
  CHECK(parsed.value("files_total", {{"file", "/etc/\"x\"\n"}, {"ok", "true"}}) == 2);
}

TEST_CASE("A histogram writes cumulative buckets ending in +Inf, then _sum and _count",
          "[metrics][exposition][histogram]") {
  m::Histogram h({0.001, 0.01, 0.1});
  h.observe(500us);  // le 0.001
  h.observe(1ms);    // le 0.001: bounds are inclusive
  h.observe(20ms);   // le 0.1
  h.observe(3s);     // +Inf only
  h.observe(-5ms);   // counts as 0
  m::Exposition out;
  out.family("op_seconds", "histogram", "Time per op.");
  out.histogram("op_seconds", {{"op", "read"}}, h.snapshot());
  CHECK(out.text() ==
        "# HELP op_seconds Time per op.\n"
        "# TYPE op_seconds histogram\n"
        "op_seconds_bucket{op=\"read\",le=\"0.001\"} 3\n"
        "op_seconds_bucket{op=\"read\",le=\"0.01\"} 3\n"
        "op_seconds_bucket{op=\"read\",le=\"0.1\"} 4\n"
        "op_seconds_bucket{op=\"read\",le=\"+Inf\"} 5\n"
        "op_seconds_sum{op=\"read\"} 3.0215\n"
        "op_seconds_count{op=\"read\"} 5\n");
  CHECK(t::parse_prometheus(out.text()).error == "");
}

TEST_CASE("The fine buckets go from 10 microseconds to 5 seconds", "[metrics][histogram]") {
  const auto b = m::fine_buckets();
  CHECK(b.front() == 0.00001);
  CHECK(b.back() == 5);
  CHECK(std::is_sorted(b.begin(), b.end()));
  CHECK(m::default_buckets() ==
        std::vector<double>{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10});
}

TEST_CASE("The test parser refuses malformed exposition text", "[metrics][exposition][parser]") {
  const std::string head = "# TYPE x counter\n";
  struct Case {
    std::string name;
    std::string text;
    std::string error;
  };
  const std::vector<Case> cases = {
      {"no TYPE", "x 1\n", "line 1: x without a TYPE before it"},
      {"no final newline", head + "x 1", "line 2: no newline at the end"},
      {"blank line", head + "\nx 1\n", "line 2: blank line"},
      {"other comment", "# hello\n", "line 1: a comment other than HELP or TYPE"},
      {"bad value", head + "x one\n", "line 2: invalid value 'one'"},
      {"bad escape", head + "x{a=\"\\t\"} 1\n", "line 2: invalid escape \\t"},
      {"unterminated", head + "x{a=\"1} 1\n", "line 2: unterminated label value"},
      {"label twice", head + "x{a=\"1\",a=\"2\"} 1\n", "line 2: label a twice"},
      {"series twice", head + "x 1\nx 2\n", "line 3: x series twice"},
      {"two spaces", head + "x  1\n", "line 2: invalid value ''"},
      {"bad label name", head + "x{1a=\"1\"} 1\n", "line 2: invalid label name '1a'"},
      {"TYPE twice", head + head, "line 2: TYPE of x twice"},
      {"family split", head + "x 1\n# TYPE y gauge\ny 1\nx{a=\"b\"} 1\n",
       "line 5: x outside its family's block"},
      {"unknown type", "# TYPE x meter\n", "line 1: unknown type 'meter'"},
      {"not cumulative",
       "# TYPE h histogram\nh_bucket{le=\"1\"} 2\nh_bucket{le=\"+Inf\"} 1\nh_sum 1\nh_count 1\n",
       "histogram h: bucket counts not cumulative"},
      {"no +Inf", "# TYPE h histogram\nh_bucket{le=\"1\"} 1\nh_sum 1\nh_count 1\n",
       "histogram h: last bucket is not +Inf"},
      {"+Inf differs from count",
       "# TYPE h histogram\nh_bucket{le=\"+Inf\"} 2\nh_sum 1\nh_count 3\n",
       "histogram h: +Inf differs from _count"},
      {"no sum", "# TYPE h histogram\nh_bucket{le=\"+Inf\"} 2\nh_count 2\n",
       "histogram h: without _sum or _count"},
  };
  for (const auto& c : cases) {
    DYNAMIC_SECTION(c.name) { CHECK(t::parse_prometheus(c.text).error == c.error); }
  }
}
