#pragma once

// Test helper: a strict parser of Prometheus' text exposition format 0.0.4, to check what
// GET /metrics serves. Stricter than Prometheus itself, so that a sloppy writer fails here first:
//   - every line is "# HELP name text", "# TYPE name type", or a sample; no other comments, no
//     blank lines, every line ends in "\n";
//   - names and label names are valid, label values use only the escapes \\ \" \n, no label twice;
//   - a family's HELP (at most one) and TYPE (exactly one) come before its samples, and its
//     samples are contiguous (name, or name_bucket/_sum/_count for a histogram);
//   - no series twice;
//   - histograms: per label set, le strictly ascending and ending in +Inf, cumulative counts
//     never decreasing, +Inf equal to _count, and a _sum.
// Prometheus' promtool checks the same text too (tests/promtool/check: `promtool check metrics`);
// this parser is what the tests read exact values through, and it checks the histogram
// invariants, which promtool does not.

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace jobset_webhook::testing {

using PromLabels = std::map<std::string, std::string>;

struct PromSample {
  std::string name;
  PromLabels labels;
  double value = 0;
};

struct PromExposition {
  std::string error;  // empty when the text is valid; else "line N: why"
  std::map<std::string, std::string> types;
  std::map<std::string, std::string> help;
  std::vector<PromSample> samples;

  // The value of the one series with exactly these labels; nullopt when absent.
  std::optional<double> value(const std::string& name, const PromLabels& labels = {}) const {
    for (const auto& s : samples) {
      if (s.name == name && s.labels == labels) return s.value;
    }
    return std::nullopt;
  }
  // Every series of name, as labels -> value.
  std::map<PromLabels, double> series(const std::string& name) const {
    std::map<PromLabels, double> out;
    for (const auto& s : samples) {
      if (s.name == name) out[s.labels] = s.value;
    }
    return out;
  }
};

namespace prom_detail {

inline bool name_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':';
}
inline bool name_char(char c) { return name_start(c) || (c >= '0' && c <= '9'); }

inline bool valid_metric_name(const std::string& n) {
  return !n.empty() && name_start(n[0]) && std::all_of(n.begin(), n.end(), name_char);
}
inline bool valid_label_name(const std::string& n) {
  return !n.empty() && name_start(n[0]) && n[0] != ':' &&
         std::all_of(n.begin(), n.end(), [](char c) { return name_char(c) && c != ':'; });
}

inline std::optional<double> parse_value(const std::string& text) {
  if (text == "+Inf") return HUGE_VAL;
  if (text == "-Inf") return -HUGE_VAL;
  if (text == "NaN") return std::nan("");
  if (text.empty()) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size()) return std::nullopt;
  // strtod also takes "inf", "nan" and hex; the format does not.
  if (std::isinf(v) || std::isnan(v) || text.find_first_of("xXnNiI") != std::string::npos)
    return std::nullopt;
  return v;
}

// The family a sample name belongs to, given the TYPEs seen.
inline std::string family_of(const std::string& name,
                             const std::map<std::string, std::string>& types) {
  if (types.count(name)) return name;
  for (const char* suffix : {"_bucket", "_sum", "_count"}) {
    const std::string s = suffix;
    if (name.size() > s.size() && name.compare(name.size() - s.size(), s.size(), s) == 0) {
      const auto base = name.substr(0, name.size() - s.size());
      const auto it = types.find(base);
      if (it != types.end() && it->second == "histogram") return base;
    }
  }
  return "";
}

// Parses `name{a="x",b="y"} value` into sample; an error message, or "".
inline std::string parse_sample(const std::string& line, PromSample& sample) {
  std::size_t i = 0;
  while (i < line.size() && name_char(line[i])) ++i;
  sample.name = line.substr(0, i);
  if (!valid_metric_name(sample.name)) return "invalid metric name";
  if (i < line.size() && line[i] == '{') {
    ++i;
    while (true) {
      if (i < line.size() && line[i] == '}') {
        ++i;
        break;
      }
      const auto start = i;
      while (i < line.size() && name_char(line[i])) ++i;
      const std::string label = line.substr(start, i - start);
      if (!valid_label_name(label)) return "invalid label name '" + label + "'";
      if (i + 1 >= line.size() || line[i] != '=' || line[i + 1] != '"')
        return "label " + label + " without =\"";
      i += 2;
      std::string value;
      bool closed = false;
      while (i < line.size()) {
        const char c = line[i++];
        if (c == '"') {
          closed = true;
          break;
        }
        if (c == '\\') {
          if (i >= line.size()) return "escape at end of line";
          const char e = line[i++];
          if (e == '\\') {
            value += '\\';
          } else if (e == '"') {
            value += '"';
          } else if (e == 'n') {
            value += '\n';
          } else {
            return std::string("invalid escape \\") + e;
          }
        } else {
          value += c;
        }
      }
      if (!closed) return "unterminated label value";
      if (sample.labels.count(label)) return "label " + label + " twice";
      sample.labels[label] = value;
      if (i < line.size() && line[i] == ',') {
        ++i;
        continue;
      }
      if (i < line.size() && line[i] == '}') {
        ++i;
        break;
      }
      return "expected , or } after a label";
    }
  }
  if (i >= line.size() || line[i] != ' ') return "expected one space before the value";
  ++i;
  std::string rest = line.substr(i);
  std::string value_text = rest, timestamp;
  if (const auto sp = rest.find(' '); sp != std::string::npos) {
    value_text = rest.substr(0, sp);
    timestamp = rest.substr(sp + 1);
    if (timestamp.empty() ||
        !std::all_of(timestamp.begin() + (timestamp[0] == '-' ? 1 : 0), timestamp.end(),
                     [](char c) { return c >= '0' && c <= '9'; }))
      return "invalid timestamp";
  }
  const auto v = parse_value(value_text);
  if (!v) return "invalid value '" + value_text + "'";
  sample.value = *v;
  return "";
}

inline std::string check_histograms(const PromExposition& e) {
  for (const auto& [family, type] : e.types) {
    if (type != "histogram") continue;
    struct Series {
      std::vector<std::pair<double, double>> buckets;  // le, count, in order of appearance
      std::optional<double> sum, count;
    };
    std::map<PromLabels, Series> by_labels;
    for (const auto& s : e.samples) {
      auto labels = s.labels;
      if (s.name == family + "_bucket") {
        if (!labels.count("le")) return family + "_bucket without le";
        const auto le = parse_value(labels["le"]);
        if (!le) return family + "_bucket with le=\"" + labels["le"] + "\"";
        labels.erase("le");
        by_labels[labels].buckets.emplace_back(*le, s.value);
      } else if (s.name == family + "_sum") {
        by_labels[labels].sum = s.value;
      } else if (s.name == family + "_count") {
        by_labels[labels].count = s.value;
      } else if (s.name == family) {
        return "histogram " + family + " with a plain sample";
      }
    }
    for (const auto& [labels, series] : by_labels) {
      const std::string what = "histogram " + family;
      if (series.buckets.empty()) return what + ": without buckets";
      if (!series.sum || !series.count) return what + ": without _sum or _count";
      for (std::size_t i = 1; i < series.buckets.size(); ++i) {
        if (!(series.buckets[i].first > series.buckets[i - 1].first))
          return what + ": le not strictly ascending";
        if (series.buckets[i].second < series.buckets[i - 1].second)
          return what + ": bucket counts not cumulative";
      }
      if (!std::isinf(series.buckets.back().first)) return what + ": last bucket is not +Inf";
      if (series.buckets.back().second != *series.count) return what + ": +Inf differs from _count";
    }
  }
  return "";
}

}  // namespace prom_detail

inline PromExposition parse_prometheus(const std::string& text) {
  using namespace prom_detail;
  PromExposition e;
  std::set<std::string> families_done;  // families whose samples have ended
  std::string current;                  // the family being written
  std::set<std::pair<std::string, PromLabels>> seen;
  std::size_t line_no = 0;
  std::size_t pos = 0;
  const auto fail = [&](const std::string& why) {
    e.error = "line " + std::to_string(line_no) + ": " + why;
    return e;
  };
  while (pos < text.size()) {
    ++line_no;
    const auto nl = text.find('\n', pos);
    if (nl == std::string::npos) return fail("no newline at the end");
    const std::string line = text.substr(pos, nl - pos);
    pos = nl + 1;
    if (line.empty()) return fail("blank line");
    if (line[0] == '#') {
      std::istringstream in(line);
      std::string hash, keyword, name;
      in >> hash >> keyword >> name;
      if (hash != "#" || (keyword != "HELP" && keyword != "TYPE"))
        return fail("a comment other than HELP or TYPE");
      if (!valid_metric_name(name)) return fail("invalid metric name in " + keyword);
      const std::string prefix = "# " + keyword + " " + name;
      if (line.size() > prefix.size() && line[prefix.size()] != ' ')
        return fail("no space after the name");
      const std::string rest = line.size() > prefix.size() ? line.substr(prefix.size() + 1) : "";
      if (families_done.count(name) || (current != name && e.types.count(name)))
        return fail(keyword + " of " + name + " after its samples or a second time");
      if (current != name && !current.empty()) families_done.insert(current);
      current = name;
      if (keyword == "HELP") {
        if (e.help.count(name)) return fail("HELP of " + name + " twice");
        for (std::size_t i = 0; i < rest.size(); ++i) {
          if (rest[i] == '\\' &&
              (i + 1 >= rest.size() || (rest[i + 1] != '\\' && rest[i + 1] != 'n')))
            return fail("invalid escape in HELP");
          if (rest[i] == '\\') ++i;
        }
        e.help[name] = rest;
      } else {
        if (e.types.count(name)) return fail("TYPE of " + name + " twice");
        if (rest != "counter" && rest != "gauge" && rest != "histogram" && rest != "summary" &&
            rest != "untyped")
          return fail("unknown type '" + rest + "'");
        e.types[name] = rest;
      }
      continue;
    }
    PromSample sample;
    if (const auto why = parse_sample(line, sample); !why.empty()) return fail(why);
    const auto family = family_of(sample.name, e.types);
    if (family.empty()) return fail(sample.name + " without a TYPE before it");
    if (family != current) return fail(sample.name + " outside its family's block");
    if (!seen.insert({sample.name, sample.labels}).second)
      return fail(sample.name + " series twice");
    e.samples.push_back(std::move(sample));
  }
  if (const auto why = check_histograms(e); !why.empty()) e.error = why;
  return e;
}

}  // namespace jobset_webhook::testing
