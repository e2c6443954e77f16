#include "yaml_scalar_internal.h"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <optional>

namespace jobset_webhook::cli {
namespace {

constexpr std::string_view kTagPrefix = "tag:yaml.org,2002:";

int digit_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'z') return c - 'a' + 10;
  if (c >= 'A' && c <= 'Z') return c - 'A' + 10;
  return 99;
}

char lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

// Go's strconv.ParseUint(s, 0, 64) on text without underscores: a leading "0b"/"0o"/"0x" (any
// case, with at least one more character) picks the base, a leading "0" alone means octal.
std::optional<std::uint64_t> parse_uint_base0(std::string_view s) {
  if (s.empty()) return std::nullopt;
  int base = 10;
  if (s[0] == '0') {
    const char p = s.size() >= 3 ? lower(s[1]) : '\0';
    if (p == 'b' || p == 'o' || p == 'x') {
      base = p == 'b' ? 2 : p == 'o' ? 8 : 16;
      s.remove_prefix(2);
    } else {
      base = 8;
      s.remove_prefix(1);  // "0" alone is then empty, which Go reads as 0
    }
  }
  std::uint64_t n = 0;
  for (const char c : s) {
    const int d = digit_value(c);
    if (d >= base) return std::nullopt;
    if (n > (UINT64_MAX - static_cast<std::uint64_t>(d)) / static_cast<std::uint64_t>(base))
      return std::nullopt;  // ErrRange
    n = n * static_cast<std::uint64_t>(base) + static_cast<std::uint64_t>(d);
  }
  return n;
}

// Go's strconv.ParseInt(s, 0, 64): an optional sign, then ParseUint's forms, within int64.
std::optional<std::int64_t> parse_int_base0(std::string_view s) {
  bool negative = false;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  const auto u = parse_uint_base0(s);
  if (!u) return std::nullopt;
  constexpr std::uint64_t kCutoff = std::uint64_t{1} << 63;
  if (negative) {
    if (*u > kCutoff) return std::nullopt;
    return *u == kCutoff ? INT64_MIN : -static_cast<std::int64_t>(*u);
  }
  if (*u >= kCutoff) return std::nullopt;
  return static_cast<std::int64_t>(*u);
}

// resolve.go's yamlStyleFloat: ^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$ (scanned,
// not matched with std::regex, whose backtracking recurses once per character and overflows the
// stack on a long scalar).
bool is_yaml_style_float(std::string_view s) {
  std::size_t i = 0;
  const auto digits = [&] {
    const std::size_t start = i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
    return i - start;
  };
  if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
  if (i < s.size() && s[i] == '.') {
    ++i;
    if (digits() == 0) return false;
  } else {
    if (digits() == 0) return false;
    if (i < s.size() && s[i] == '.') {
      ++i;
      digits();
    }
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
    if (digits() == 0) return false;
  }
  return i == s.size();
}

// Go's strconv.ParseFloat(s, 64) on text that is_yaml_style_float accepts: nullopt when the
// value overflows (ErrRange); an underflow is 0 or a subnormal, without error, as in Go.
std::optional<double> parse_float(std::string_view s) {
  const std::string text(s);
  char* end = nullptr;
  const double d = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size() || std::isinf(d)) return std::nullopt;
  return d;
}

// strconv's underscoreOK for a float without a base prefix: each '_' sits between two digits.
bool underscores_between_digits(std::string_view s) {
  char saw = '^';
  for (const char c : s) {
    if (c >= '0' && c <= '9') {
      saw = '0';
    } else if (c == '_') {
      if (saw != '0') return false;
      saw = '_';
    } else {
      if (saw == '_') return false;
      saw = '!';
    }
  }
  return saw != '_';
}

std::string without_underscores(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (const char c : s) {
    if (c != '_') out += c;
  }
  return out;
}

YamlScalar scalar(YamlScalar::Tag tag, Json value) { return {tag, std::move(value)}; }

YamlScalar integer_scalar(std::int64_t n) { return scalar(YamlScalar::Tag::kInt, n); }

// resolve() with no tag (or a resolvable one, whose check is the caller's).
YamlScalar resolve_untagged(std::string_view in) {
  using Tag = YamlScalar::Tag;
  // resolveMap: the YAML 1.1 booleans, nulls and special floats, in exactly these spellings.
  struct Special {
    std::string_view text;
    Tag tag;
    double number;  // kFloat
    bool boolean;   // kBool
  };
  static constexpr double kInf = std::numeric_limits<double>::infinity();
  static constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  static constexpr std::array<Special, 39> kSpecials{{
      {"y", Tag::kBool, 0, true},           {"Y", Tag::kBool, 0, true},
      {"yes", Tag::kBool, 0, true},         {"Yes", Tag::kBool, 0, true},
      {"YES", Tag::kBool, 0, true},         {"true", Tag::kBool, 0, true},
      {"True", Tag::kBool, 0, true},        {"TRUE", Tag::kBool, 0, true},
      {"on", Tag::kBool, 0, true},          {"On", Tag::kBool, 0, true},
      {"ON", Tag::kBool, 0, true},          {"n", Tag::kBool, 0, false},
      {"N", Tag::kBool, 0, false},          {"no", Tag::kBool, 0, false},
      {"No", Tag::kBool, 0, false},         {"NO", Tag::kBool, 0, false},
      {"false", Tag::kBool, 0, false},      {"False", Tag::kBool, 0, false},
      {"FALSE", Tag::kBool, 0, false},      {"off", Tag::kBool, 0, false},
      {"Off", Tag::kBool, 0, false},        {"OFF", Tag::kBool, 0, false},
      {"", Tag::kNull, 0, false},           {"~", Tag::kNull, 0, false},
      {"null", Tag::kNull, 0, false},       {"Null", Tag::kNull, 0, false},
      {"NULL", Tag::kNull, 0, false},       {".nan", Tag::kFloat, kNaN, false},
      {".NaN", Tag::kFloat, kNaN, false},   {".NAN", Tag::kFloat, kNaN, false},
      {".inf", Tag::kFloat, kInf, false},   {".Inf", Tag::kFloat, kInf, false},
      {".INF", Tag::kFloat, kInf, false},   {"+.inf", Tag::kFloat, kInf, false},
      {"+.Inf", Tag::kFloat, kInf, false},  {"+.INF", Tag::kFloat, kInf, false},
      {"-.inf", Tag::kFloat, -kInf, false}, {"-.Inf", Tag::kFloat, -kInf, false},
      {"-.INF", Tag::kFloat, -kInf, false},
  }};
  // resolveTable: only a scalar that starts with a sign, a digit, '.' or one of "yYnNtTfFoO~"
  // (or is empty) can be anything but a string.
  const char first = in.empty() ? 'N' : in[0];
  const bool sign_or_digit = first == '+' || first == '-' || (first >= '0' && first <= '9');
  constexpr std::string_view kMapHints = "yYnNtTfFoO~N";
  if (!sign_or_digit && first != '.' && kMapHints.find(first) == std::string_view::npos)
    return scalar(Tag::kString, std::string(in));
  for (const auto& s : kSpecials) {
    if (s.text != in) continue;
    if (s.tag == Tag::kBool) return scalar(Tag::kBool, s.boolean);
    if (s.tag == Tag::kNull) return scalar(Tag::kNull, nullptr);
    return scalar(Tag::kFloat, s.number);
  }
  if (first == '.') {
    // strconv.ParseFloat on the text as written, where '_' may separate digits.
    if (!underscores_between_digits(in)) return scalar(Tag::kString, std::string(in));
    const std::string plain = without_underscores(in);
    if (is_yaml_style_float(plain)) {
      if (const auto d = parse_float(plain)) return scalar(Tag::kFloat, *d);
    }
    return scalar(Tag::kString, std::string(in));
  }
  if (!sign_or_digit) return scalar(Tag::kString, std::string(in));
  // A timestamp (YYYY-...) is kept as its text when decoded into interface{} (decode.go), which
  // no integer or float form below would match anyway.
  const std::string plain = without_underscores(in);
  if (const auto n = parse_int_base0(plain)) return integer_scalar(*n);
  if (plain[0] != '-' && plain[0] != '+') {
    if (const auto u = parse_uint_base0(plain)) return scalar(Tag::kUint, *u);
  }
  if (is_yaml_style_float(plain)) {
    if (const auto d = parse_float(plain)) return scalar(Tag::kFloat, *d);
  }
  // resolve()'s own "0b" and "-0b" branches accept nothing ParseInt(plain, 0, 64) refused above.
  return scalar(Tag::kString, std::string(in));
}

std::string_view short_tag(YamlScalar::Tag tag) {
  switch (tag) {
    case YamlScalar::Tag::kNull: return "!!null";
    case YamlScalar::Tag::kBool: return "!!bool";
    case YamlScalar::Tag::kInt:
    case YamlScalar::Tag::kUint: return "!!int";
    case YamlScalar::Tag::kFloat: return "!!float";
    case YamlScalar::Tag::kString: return "!!str";
  }
  return "!!str";
}

// strconv.FormatFloat(f, 'g', -1, 32): the shortest digits that read back as the same float32,
// in %e form when the exponent is below -4 or at least 6 (Go's rule for the shortest 'g').
std::string format_float32_g(double d) {
  const float f = static_cast<float>(d);
  if (std::isnan(f)) return "NaN";
  if (std::isinf(f)) return f > 0 ? "+Inf" : "-Inf";
  std::array<char, 64> buf{};
  const auto res =
      std::to_chars(buf.data(), buf.data() + buf.size(), f, std::chars_format::scientific);
  std::string_view text(buf.data(), static_cast<std::size_t>(res.ptr - buf.data()));
  std::string out;
  if (text[0] == '-') {
    out += '-';
    text.remove_prefix(1);
  }
  const auto e = text.find('e');
  std::string digits;
  for (const char c : text.substr(0, e)) {
    if (c != '.') digits += c;
  }
  std::string_view exp_text = text.substr(e + 1);
  if (exp_text[0] == '+') exp_text.remove_prefix(1);
  int exp = 0;
  std::from_chars(exp_text.data(), exp_text.data() + exp_text.size(), exp);
  if (digits == "0") return out + "0";
  const int nd = static_cast<int>(digits.size());
  if (exp < -4 || exp >= 6) {
    out += digits[0];
    if (nd > 1) out += "." + digits.substr(1);
    out += exp < 0 ? "e-" : "e+";
    const int a = exp < 0 ? -exp : exp;
    if (a < 10) out += '0';
    out += std::to_string(a);
    return out;
  }
  const int dp = exp + 1;  // digits before the decimal point
  if (dp <= 0) return out + "0." + std::string(static_cast<std::size_t>(-dp), '0') + digits;
  if (dp >= nd) return out + digits + std::string(static_cast<std::size_t>(dp - nd), '0');
  return out + digits.substr(0, static_cast<std::size_t>(dp)) + "." +
         digits.substr(static_cast<std::size_t>(dp));
}

}  // namespace

Result<YamlScalar> resolve_scalar(std::string_view tag, std::string_view in) {
  using Tag = YamlScalar::Tag;
  if (tag == "!" || tag == "tag:yaml.org,2002:str") return scalar(Tag::kString, std::string(in));
  if (tag == "?" || tag.empty()) return resolve_untagged(in);
  if (tag.substr(0, kTagPrefix.size()) != kTagPrefix) {
    return scalar(Tag::kString, std::string(in));  // not resolvableTag: the text, untyped
  }
  const std::string_view name = tag.substr(kTagPrefix.size());
  std::optional<Tag> want;
  if (name == "null") want = Tag::kNull;
  if (name == "bool") want = Tag::kBool;
  if (name == "int") want = Tag::kInt;
  if (name == "float") want = Tag::kFloat;
  if (name == "binary") return invalid_argument("!!binary scalars are not supported");
  if (!want) return scalar(Tag::kString, std::string(in));  // !!timestamp and others: the text
  YamlScalar got = resolve_untagged(in);
  const Tag got_tag = got.tag == Tag::kUint ? Tag::kInt : got.tag;
  if (got_tag == *want) return got;
  // resolve()'s deferred check: an integer under !!float becomes a float; anything else fails.
  if (*want == Tag::kFloat && got.tag == Tag::kInt)
    return scalar(Tag::kFloat, static_cast<double>(got.value.get<std::int64_t>()));
  if (*want == Tag::kFloat && got.tag == Tag::kUint)
    return scalar(Tag::kFloat, static_cast<double>(got.value.get<std::uint64_t>()));
  return invalid_argument("cannot decode " + std::string(short_tag(got.tag)) + " `" +
                          std::string(in) + "` as a !!" + std::string(name));
}

Result<Json> json_value(const YamlScalar& s) {
  if (s.tag != YamlScalar::Tag::kFloat) return s.value;
  const double d = s.value.get<double>();
  if (std::isnan(d) || std::isinf(d)) {
    return invalid_argument("error converting YAML to JSON: json: unsupported value: " +
                            format_float32_g(d));
  }
  // json.Marshal writes an integral float without a fraction or exponent below 1e21, and the API
  // server's decoder reads such a number as an int64 when it fits.
  if (std::trunc(d) == d && d > -9223372036854775808.0 && d < 9223372036854775808.0)
    return Json(static_cast<std::int64_t>(d));
  return Json(d);
}

Result<std::string> json_key(const YamlScalar& s) {
  switch (s.tag) {
    case YamlScalar::Tag::kString: return s.value.get<std::string>();
    case YamlScalar::Tag::kInt: return std::to_string(s.value.get<std::int64_t>());
    case YamlScalar::Tag::kBool: return std::string(s.value.get<bool>() ? "true" : "false");
    case YamlScalar::Tag::kFloat: {
      std::string k = format_float32_g(s.value.get<double>());
      if (k == "+Inf") return std::string(".inf");
      if (k == "-Inf") return std::string("-.inf");
      if (k == "NaN") return std::string(".nan");
      return k;
    }
    case YamlScalar::Tag::kUint: return invalid_argument("unsupported map key of type: uint64");
    case YamlScalar::Tag::kNull: break;
  }
  return invalid_argument("unsupported map key of type: <nil>");
}

Json plain_scalar(std::string_view s) {
  const YamlScalar resolved = resolve_untagged(s);
  auto value = json_value(resolved);
  return value.ok() ? std::move(value).value() : resolved.value;
}

}  // namespace jobset_webhook::cli
