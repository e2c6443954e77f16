// Catch2 reporter "tap-cases": one TAP line per test case, read by `meson test` (protocol 'tap'),
// each followed by what Catch2's console reporter says of it (the failed assertion, its expansion,
// file and line, sections and INFO; warnings) and what it wrote to std::cout or std::cerr, as
// "# " comment lines. Catch2 v2's own TAP reporter writes a line for every assertion, passing ones
// included (436,000 lines for this suite), in which a failure cannot be found; this one keeps
// the console reporter's words and TAP's counting.
// Included once, by main.cpp: Catch2 registers a reporter in the file that defines its runner.
#pragma once

#include <cstddef>
#include <sstream>
#include <string>

namespace jobset_tests {

class TapCaseReporter : public Catch::StreamingReporterBase<TapCaseReporter> {
 public:
  explicit TapCaseReporter(const Catch::ReporterConfig& config)
      : StreamingReporterBase(config),
        console_(Catch::ReporterConfig(config.fullConfig(), account_)) {
    // What a test case writes to std::cout would be taken for a TAP line: Catch2 captures it and
    // hands it to testCaseEnded, which prints it as comments.
    m_reporterPrefs.shouldRedirectStdOut = true;
  }

  static std::string getDescription() {
    return "One TAP line per test case, the console reporter's account of failures as comments";
  }

  void noMatchingTestCases(const std::string& spec) override {
    console_.noMatchingTestCases(spec);
    flush_account();
  }
  void reportInvalidArguments(const std::string& arg) override {
    console_.reportInvalidArguments(arg);
    flush_account();
  }
  void testRunStarting(const Catch::TestRunInfo& info) override {
    StreamingReporterBase::testRunStarting(info);
    console_.testRunStarting(info);
  }
  void testGroupStarting(const Catch::GroupInfo& info) override {
    StreamingReporterBase::testGroupStarting(info);
    console_.testGroupStarting(info);
  }
  void testCaseStarting(const Catch::TestCaseInfo& info) override {
    StreamingReporterBase::testCaseStarting(info);
    console_.testCaseStarting(info);
  }
  void sectionStarting(const Catch::SectionInfo& info) override {
    StreamingReporterBase::sectionStarting(info);
    console_.sectionStarting(info);
  }
  void assertionStarting(const Catch::AssertionInfo& info) override {
    console_.assertionStarting(info);
  }
  bool assertionEnded(const Catch::AssertionStats& stats) override {
    return console_.assertionEnded(stats);
  }
  void sectionEnded(const Catch::SectionStats& stats) override {
    StreamingReporterBase::sectionEnded(stats);
    console_.sectionEnded(stats);
  }
  void fatalErrorEncountered(Catch::StringRef name) override {
    console_.fatalErrorEncountered(name);
  }

  void testCaseEnded(const Catch::TestCaseStats& stats) override {
    console_.testCaseEnded(stats);
    ++cases_;
    stream << (stats.totals.testCases.failed > 0 ? "not ok " : "ok ") << cases_ << " - "
           << tap_name(stats.testInfo.name) << '\n';
    account_ << stats.stdOut << stats.stdErr;
    flush_account();
    StreamingReporterBase::testCaseEnded(stats);
  }
  void testGroupEnded(const Catch::TestGroupStats& stats) override {
    console_.testGroupEnded(stats);
    StreamingReporterBase::testGroupEnded(stats);
  }
  void testRunEnded(const Catch::TestRunStats& stats) override {
    console_.testRunEnded(stats);
    account_.str({});  // the console's totals: the plan line says how many cases ran
    stream << "1.." << cases_ << std::endl;
    StreamingReporterBase::testRunEnded(stats);
  }

 private:
  // "#" starts a TAP directive (SKIP, TODO), so a name must not hold one.
  static std::string tap_name(std::string name) {
    for (std::size_t at = name.find('#'); at != std::string::npos; at = name.find('#', at))
      name.replace(at, 1, "\xEF\xBC\x83");  // U+FF03 FULLWIDTH NUMBER SIGN
    return name;
  }

  void flush_account() {
    std::istringstream lines(account_.str());
    for (std::string line; std::getline(lines, line);) stream << "# " << line << '\n';
    stream.flush();
    account_.str({});
  }

  std::ostringstream account_;  // what console_ writes; declared first, built first
  Catch::ConsoleReporter console_;
  std::size_t cases_ = 0;
};

CATCH_REGISTER_REPORTER("tap-cases", TapCaseReporter)

}  // namespace jobset_tests
