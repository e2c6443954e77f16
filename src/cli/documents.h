#pragma once

// Reading what users hand the CLI: files or stdin, YAML or JSON, converted to Json here and
// nowhere else (the core never sees YAML). And the way back, for printing objects as YAML.

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "jobset_webhook/json.h"
#include "jobset_webhook/policy.h"
#include "jobset_webhook/result.h"

namespace jobset_webhook::cli {

// The whole content of a file, or of stdin for "-". Failure names the path and the OS error.
Result<std::string> read_input(const std::string& path);

// Every document of a YAML stream (JSON is YAML too), converted to JSON with YAML 1.2 core-schema
// scalars: true/false, null/~, integers and floats untagged, anything quoted stays a string.
// Failure names the source and the line of a syntax error, or of a key repeated in a mapping.
Result<std::vector<Json>> parse_yaml_documents(std::string_view text, std::string_view source);

// A position in a text, 1-based, as editors and compilers print it.
struct Mark {
  int line = 0;
  int column = 0;
  bool operator==(const Mark&) const = default;
};

// A document and where each of its values is written. Keys are RFC 6901 JSON pointers ("" for
// the document itself, "/spec/replicatedJobs/0/name"); a mapping member is marked at its key, a
// list element at its first character.
struct LocatedDocument {
  Json value;
  std::map<std::string, Mark, std::less<>> marks;
  // By pointer, the strings written as a literal block scalar (`|`, `|-`, `|+`, `|2`...): where
  // line 1, column 1 of the string's text is. Line N of the text is the Nth line after the `|`,
  // behind the block's indentation, so a position in the text is this one moved N-1 lines down
  // and as many columns right as it is past column 1. Other scalars (plain, quoted, a folded `>`
  // block, one with a tag or anchor before it) are not here: their lines are not the text's.
  std::map<std::string, Mark, std::less<>> literal_blocks;
};

// parse_yaml_documents, keeping the marks. Lines count from the start of the stream, so they are
// the lines of the file whatever document they are in.
Result<std::vector<LocatedDocument>> parse_located_documents(std::string_view text,
                                                             std::string_view source);

// Block-style YAML for a JSON value, keys in the value's order. A string that YAML would read as
// something else ("true", "1", "null", "") is quoted, so parse_yaml_documents gives the value back.
std::string to_yaml(const Json& value);

// The policy file (YAML or JSON) at path, checked by parse_policy.
Result<Policy> load_policy_file(const std::string& path);

}  // namespace jobset_webhook::cli
