#include "jobset_webhook/validation/quantity.h"

#include <cctype>
#include <utility>

namespace jobset_webhook::validation {
namespace {

// Quantities finer than 10^-9 are rounded up by resource.ParseQuantity.
constexpr long long kMinExponent = -9;
// Beyond this the value is far outside anything Kubernetes accepts; refuse rather than build a
// huge digit string.
constexpr long long kMaxExponentMagnitude = 1000;

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// digits *= factor, on a decimal string with no sign.
std::string multiply(const std::string& digits, unsigned factor) {
  std::string out(digits.size(), '0');
  unsigned long long carry = 0;
  for (std::size_t i = digits.size(); i-- > 0;) {
    const unsigned long long v = (digits[i] - '0') * 1ULL * factor + carry;
    out[i] = static_cast<char>('0' + v % 10);
    carry = v / 10;
  }
  while (carry > 0) {
    out.insert(out.begin(), static_cast<char>('0' + carry % 10));
    carry /= 10;
  }
  return out;
}

// Adds one to the last digit of a decimal string.
std::string increment(std::string digits) {
  for (std::size_t i = digits.size(); i-- > 0;) {
    if (digits[i] != '9') {
      ++digits[i];
      return digits;
    }
    digits[i] = '0';
  }
  return "1" + digits;
}

void normalize(ExactQuantity& q) {
  const auto first = q.digits.find_first_not_of('0');
  if (first == std::string::npos) {
    q = ExactQuantity{};
    return;
  }
  q.digits.erase(0, first);
  const auto last = q.digits.find_last_not_of('0');
  q.exponent += static_cast<long long>(q.digits.size() - 1 - last);
  q.digits.erase(last + 1);
}

// The suffix's power of ten and power of 1024; an exponent suffix ("e3") is the power of ten alone.
std::optional<std::pair<long long, int>> suffix_scale(std::string_view suffix) {
  if (suffix.empty()) return std::pair{0LL, 0};
  if (suffix.size() == 2 && suffix[1] == 'i') {
    constexpr std::string_view kBinary = "KMGTPE";
    const auto pos = kBinary.find(suffix[0]);
    if (pos == std::string_view::npos) return std::nullopt;
    return std::pair{0LL, static_cast<int>(pos) + 1};
  }
  if (suffix.size() == 1) {
    switch (suffix[0]) {
      case 'n': return std::pair{-9LL, 0};
      case 'u': return std::pair{-6LL, 0};
      case 'm': return std::pair{-3LL, 0};
      case 'k': return std::pair{3LL, 0};
      case 'M': return std::pair{6LL, 0};
      case 'G': return std::pair{9LL, 0};
      case 'T': return std::pair{12LL, 0};
      case 'P': return std::pair{15LL, 0};
      case 'E': return std::pair{18LL, 0};
      default: return std::nullopt;
    }
  }
  if (suffix[0] == 'e' || suffix[0] == 'E') {
    std::string_view rest = suffix.substr(1);
    bool negative = false;
    if (!rest.empty() && (rest[0] == '+' || rest[0] == '-')) {
      negative = rest[0] == '-';
      rest.remove_prefix(1);
    }
    if (rest.empty() || rest.size() > 4) return std::nullopt;
    long long exp = 0;
    for (const char c : rest) {
      if (!is_digit(c)) return std::nullopt;
      exp = exp * 10 + (c - '0');
    }
    return std::pair{negative ? -exp : exp, 0};
  }
  return std::nullopt;
}

// True when |q| > 2^63 - 1, the cap resource.ParseQuantity puts on DecimalSI and BinarySI values.
bool above_max_int64(const ExactQuantity& q) {
  constexpr std::string_view kMax = "9223372036854775807";
  const long long integer_digits = static_cast<long long>(q.digits.size()) + q.exponent;
  if (integer_digits != static_cast<long long>(kMax.size())) {
    return integer_digits > static_cast<long long>(kMax.size());
  }
  if (q.exponent < 0) return q.digits.substr(0, kMax.size()) >= kMax;  // has a fraction too
  return q.digits + std::string(static_cast<std::size_t>(q.exponent), '0') > kMax;
}

}  // namespace

std::optional<ExactQuantity> parse_quantity(std::string_view text) {
  ExactQuantity q;
  std::size_t i = 0;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) q.negative = text[i++] == '-';
  std::string digits;
  long long exponent = 0;
  bool seen_digit = false;
  for (; i < text.size() && is_digit(text[i]); ++i, seen_digit = true) digits += text[i];
  if (i < text.size() && text[i] == '.') {
    for (++i; i < text.size() && is_digit(text[i]); ++i, seen_digit = true) {
      digits += text[i];
      --exponent;
    }
  }
  if (!seen_digit) return std::nullopt;
  const auto scale = suffix_scale(text.substr(i));
  if (!scale) return std::nullopt;
  exponent += scale->first;
  if (exponent > kMaxExponentMagnitude || exponent < -kMaxExponentMagnitude) return std::nullopt;
  for (int k = 0; k < scale->second; ++k) digits = multiply(digits, 1024);
  q.digits = std::move(digits);
  q.exponent = exponent;
  normalize(q);
  if (q.exponent < kMinExponent) {
    const auto dropped = static_cast<std::size_t>(kMinExponent - q.exponent);
    // Normalized digits end in a non-zero digit, so dropping any makes the value round up.
    q.digits =
        dropped >= q.digits.size() ? "1" : increment(q.digits.substr(0, q.digits.size() - dropped));
    q.exponent = kMinExponent;
    normalize(q);
  }
  // "The max is just a simple cap" (ParseQuantity): beyond 2^63-1 a value without an exponent
  // suffix ("100000000000000000000", "9Ei") is 2^63-1; one with it ("1e20") is kept.
  const std::string_view suffix = text.substr(i);
  const bool exponent_suffix =
      suffix.size() > 1 && (suffix[0] == 'e' || suffix[0] == 'E') && suffix != "Ei";
  if (!exponent_suffix && above_max_int64(q)) {
    q.digits = "9223372036854775807";
    q.exponent = 0;
  }
  if (q.digits == "0") q.negative = false;
  return q;
}

}  // namespace jobset_webhook::validation
