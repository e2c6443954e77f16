#include "quantity.h"

#include <cstdint>
#include <utility>

namespace jobset_webhook::validation {
namespace {

// resource.ParseQuantity rounds non-zero values up to a nano-unit.
constexpr long long kNanoExponent = -9;
// maxInt64Factors in apimachinery's math.go.
constexpr long long kMaxInt64Factors = 18;
constexpr std::string_view kMaxInt64 = "9223372036854775807";

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Go's int32(x) of an int64: the low 32 bits, as two's complement.
long long wrap32(long long x) {
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(static_cast<std::uint64_t>(x)));
}

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

// What parseQuantityString (apimachinery resource/quantity.go) splits a quantity into.
struct Parts {
  bool positive = true;
  std::string_view value;  // the sign and number as written, or "0"
  std::string_view num;    // the integer digits without leading zeros, "0" when there are none
  std::string_view denom;  // the digits after '.'
  std::string_view suffix;
};

// A port of parseQuantityString: nullopt where it returns ErrFormatWrong. It accepts more than
// the regular expression it names ("+", ".", "Gi" are zero).
std::optional<Parts> split(std::string_view str) {
  Parts p;
  std::size_t pos = 0;
  const std::size_t end = str.size();
  if (pos < end && (str[0] == '-' || str[0] == '+')) {
    p.positive = str[0] != '-';
    ++pos;
  }
  while (pos < end && str[pos] == '0') ++pos;
  if (pos >= end) {
    p.num = p.value = "0";
    return p;
  }
  std::size_t i = pos;
  while (i < end && is_digit(str[i])) ++i;
  if (i >= end) {
    p.num = str.substr(pos);
    p.value = str;
    return p;
  }
  p.num = i == pos ? std::string_view("0") : str.substr(pos, i - pos);
  pos = i;
  if (str[pos] == '.') {
    ++pos;
    i = pos;
    while (i < end && is_digit(str[i])) ++i;
    p.denom = str.substr(pos, i - pos);
    if (i >= end) {
      p.value = str;
      return p;
    }
    pos = i;
  }
  p.value = str.substr(0, pos);
  const std::size_t suffix_start = pos;
  constexpr std::string_view kSuffixChars = "eEinumkKMGTP";
  while (pos < end && kSuffixChars.find(str[pos]) != std::string_view::npos) ++pos;
  if (pos < end && (str[pos] == '-' || str[pos] == '+')) ++pos;
  while (pos < end && is_digit(str[pos])) ++pos;
  if (pos < end) return std::nullopt;
  p.suffix = str.substr(suffix_start);
  return p;
}

enum class Format { kDecimalSI, kBinarySI, kDecimalExponent };

struct SuffixScale {
  int base = 10;
  long long exponent = 0;  // an int32, as Go's interpret returns it
  Format format = Format::kDecimalSI;
};

// strconv.ParseInt(s, 10, 64): an optional sign and decimal digits, within int64.
std::optional<long long> parse_int64(std::string_view s) {
  bool negative = false;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s.empty()) return std::nullopt;
  unsigned long long v = 0;
  const unsigned long long limit = negative ? 9223372036854775808ULL : 9223372036854775807ULL;
  for (const char c : s) {
    if (!is_digit(c)) return std::nullopt;
    if (v > (limit - static_cast<unsigned>(c - '0')) / 10) return std::nullopt;
    v = v * 10 + static_cast<unsigned>(c - '0');
  }
  return negative ? static_cast<long long>(0 - v) : static_cast<long long>(v);
}

// suffixHandler.interpret: the SI and binary suffixes, else "e"/"E" and an int64 that Go then
// truncates to int32 ("1e4294967297" is 10).
std::optional<SuffixScale> interpret(std::string_view suffix) {
  if (suffix.empty()) return SuffixScale{};
  if (suffix.size() == 1) {
    switch (suffix[0]) {
      case 'n': return SuffixScale{10, -9, Format::kDecimalSI};
      case 'u': return SuffixScale{10, -6, Format::kDecimalSI};
      case 'm': return SuffixScale{10, -3, Format::kDecimalSI};
      case 'k': return SuffixScale{10, 3, Format::kDecimalSI};
      case 'M': return SuffixScale{10, 6, Format::kDecimalSI};
      case 'G': return SuffixScale{10, 9, Format::kDecimalSI};
      case 'T': return SuffixScale{10, 12, Format::kDecimalSI};
      case 'P': return SuffixScale{10, 15, Format::kDecimalSI};
      case 'E': return SuffixScale{10, 18, Format::kDecimalSI};
      default: return std::nullopt;
    }
  }
  if (suffix.size() == 2 && suffix[1] == 'i') {
    constexpr std::string_view kBinary = "KMGTPE";
    const auto pos = kBinary.find(suffix[0]);
    if (pos != std::string_view::npos)
      return SuffixScale{2, 10 * (static_cast<long long>(pos) + 1), Format::kBinarySI};
  }
  if (suffix[0] == 'e' || suffix[0] == 'E') {
    const auto parsed = parse_int64(suffix.substr(1));
    if (!parsed) return std::nullopt;
    return SuffixScale{10, wrap32(*parsed), Format::kDecimalExponent};
  }
  return std::nullopt;
}

// True when |q| > 2^63 - 1.
bool above_max_int64(const ExactQuantity& q) {
  const long long integer_digits = static_cast<long long>(q.digits.size()) + q.exponent;
  const auto max_digits = static_cast<long long>(kMaxInt64.size());
  if (integer_digits != max_digits) return integer_digits > max_digits;
  if (q.exponent < 0) return q.digits.substr(0, kMaxInt64.size()) >= kMaxInt64;  // a fraction too
  return q.digits + std::string(static_cast<std::size_t>(q.exponent), '0') > kMaxInt64;
}

// ParseQuantity, with the error it returns in error (untouched on success).
std::optional<ExactQuantity> parse(std::string_view text, std::string_view& error) {
  error = kQuantityErrFormatWrong;
  if (text.empty()) return std::nullopt;
  const auto parts = split(text);
  if (!parts) return std::nullopt;
  const auto scale = interpret(parts->suffix);
  error = kQuantityErrSuffix;
  if (!scale) return std::nullopt;
  error = {};
  const auto denom_size = static_cast<long long>(parts->denom.size());

  ExactQuantity q;
  q.negative = !parts->positive;
  // The int64 fast path: few enough digits, and a scale (int32 arithmetic, as in Go) of at least
  // a nano-unit. Its value is exact: no rounding, no cap.
  bool fast = false;
  if (scale->format != Format::kBinarySI) {
    const long long precision =
        kMaxInt64Factors - static_cast<long long>(parts->num.size()) - denom_size;
    const long long shifted_scale = wrap32(scale->exponent - denom_size);
    if (precision >= 0 && shifted_scale >= kNanoExponent) {
      q.digits = std::string(parts->num) + std::string(parts->denom);
      q.exponent = shifted_scale;
      fast = true;
    }
  } else if (denom_size == 0) {
    // float32(exponent)*3/10 is exact for the multiples of 10 that binary suffixes have.
    const long long precision =
        15 - static_cast<long long>(parts->num.size()) - scale->exponent * 3 / 10 - 1;
    if (precision >= 0) {
      q.digits = std::string(parts->num);
      for (long long k = 0; k < scale->exponent; k += 10) q.digits = multiply(q.digits, 1024);
      fast = true;
    }
  }
  if (fast) {
    normalize(q);
    q.negative = !parts->positive && q.digits != "0";
    return q;
  }

  // inf.Dec's SetString of the value: needs a digit ("e-10" is ErrNumeric).
  std::string digits;
  for (const char c : parts->value) {
    if (is_digit(c)) digits += c;
  }
  if (digits.empty()) {
    error = kQuantityErrNumeric;
    return std::nullopt;
  }
  // The Dec's scale is the count of digits after '.'; a decimal suffix adds -exponent to it, in
  // int32 arithmetic as Go's inf.SuffixScale is ("1e-2147483648" is 10^2147483648 there).
  long long dec_scale = denom_size;
  if (scale->base == 10) {
    dec_scale = wrap32(dec_scale + wrap32(-scale->exponent));
  } else {
    for (long long k = 0; k < scale->exponent; k += 10) digits = multiply(digits, 1024);
  }
  q.digits = std::move(digits);
  q.exponent = -dec_scale;
  normalize(q);
  if (q.exponent < kNanoExponent) {
    // Rounded up (away from zero) to a nano-unit; normalized digits end in a non-zero digit, so
    // dropping any of them rounds up.
    const auto dropped = static_cast<unsigned long long>(kNanoExponent - q.exponent);
    q.digits =
        dropped >= q.digits.size() ? "1" : increment(q.digits.substr(0, q.digits.size() - dropped));
    q.exponent = kNanoExponent;
    normalize(q);
  }
  // "The max is just a simple cap", for BinarySI only: "10Ei" is 2^63-1, "1e20" and
  // "100000000000000000000" keep their value.
  if (scale->format == Format::kBinarySI && above_max_int64(q)) {
    q.digits = std::string(kMaxInt64);
    q.exponent = 0;
  }
  q.negative = !parts->positive && q.digits != "0";
  return q;
}

}  // namespace

std::optional<ExactQuantity> parse_quantity(std::string_view text) {
  std::string_view error;
  return parse(text, error);
}

std::string_view quantity_error(std::string_view text) {
  std::string_view error;
  parse(text, error);
  return error;
}

bool matches_quantity_pattern(std::string_view text) {
  std::size_t i = 0;
  // ([0-9]+(\.[0-9]*)?)|(\.[0-9]+) from i; false when there is none.
  auto number = [&]() {
    const std::size_t start = i;
    while (i < text.size() && is_digit(text[i])) ++i;
    const bool integer = i > start;
    if (i < text.size() && text[i] == '.') {
      const std::size_t point = ++i;
      while (i < text.size() && is_digit(text[i])) ++i;
      return integer || i > point;
    }
    return integer;
  };
  auto sign = [&]() {
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
  };
  sign();
  if (!number()) return false;
  if (i == text.size()) return true;
  const std::string_view rest = text.substr(i);
  if (rest.size() == 2 && rest[1] == 'i')
    return std::string_view("KMGTPE").find(rest[0]) != std::string_view::npos;
  if (rest.size() == 1 && std::string_view("numkMGTPE").find(rest[0]) != std::string_view::npos)
    return true;
  if (rest[0] != 'e' && rest[0] != 'E') return false;
  ++i;
  sign();
  return number() && i == text.size();
}

}  // namespace jobset_webhook::validation
