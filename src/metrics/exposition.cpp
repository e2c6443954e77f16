#include "jobset_webhook/metrics/exposition.h"

#include <charconv>
#include <cmath>

namespace jobset_webhook::metrics {

namespace {

// The format's escapes: backslash and line feed always, the double quote inside label values.
std::string escape(std::string_view text, bool quotes) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '"' && quotes) {
      out += "\\\"";
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace

std::string escape_label_value(std::string_view value) { return escape(value, true); }

std::string escape_help(std::string_view help) { return escape(help, false); }

std::string format_value(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  char text[64];
  const auto [end, ec] = std::to_chars(text, text + sizeof text, value);
  if (ec != std::errc()) return "NaN";
  return std::string(text, end);
}

std::string format_value(std::uint64_t value) { return std::to_string(value); }

void Exposition::family(std::string_view name, std::string_view type, std::string_view help) {
  text_ += "# HELP ";
  text_ += name;
  text_ += ' ';
  text_ += escape_help(help);
  text_ += "\n# TYPE ";
  text_ += name;
  text_ += ' ';
  text_ += type;
  text_ += '\n';
}

void Exposition::line(std::string_view name, const Labels& labels, std::string_view value) {
  text_ += name;
  if (!labels.empty()) {
    text_ += '{';
    bool first = true;
    for (const auto& [label, label_value] : labels) {
      if (!first) text_ += ',';
      first = false;
      text_ += label;
      text_ += "=\"";
      text_ += escape_label_value(label_value);
      text_ += '"';
    }
    text_ += '}';
  }
  text_ += ' ';
  text_ += value;
  text_ += '\n';
}

void Exposition::sample(std::string_view name, const Labels& labels, double value) {
  line(name, labels, format_value(value));
}

void Exposition::sample(std::string_view name, const Labels& labels, std::uint64_t value) {
  line(name, labels, format_value(value));
}

void Exposition::sample(std::string_view name, const Labels& labels, std::int64_t value) {
  line(name, labels, std::to_string(value));
}

void Exposition::histogram(std::string_view name, const Labels& labels,
                           const HistogramSnapshot& h) {
  const std::string bucket = std::string(name) + "_bucket";
  Labels with_le = labels;
  with_le.emplace_back("le", "");
  for (std::size_t i = 0; i < h.buckets.size(); ++i) {
    with_le.back().second = i < h.bounds.size() ? format_value(h.bounds[i]) : "+Inf";
    line(bucket, with_le, format_value(h.buckets[i]));
  }
  line(std::string(name) + "_sum", labels, format_value(h.sum));
  line(std::string(name) + "_count", labels, format_value(h.count()));
}

}  // namespace jobset_webhook::metrics
