#pragma once

// RFC 6901 JSON Pointers: the one place a pointer is spelled and its tokens escaped. A patch's
// paths (patch/json_patch.h), a default's place and a manifest's positions (the CLI's marks) are
// all such pointers.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace jobset_webhook {

// One reference token escaped as RFC 6901 requires: "~" becomes "~0", then "/" becomes "~1".
//   escape_pointer_token("a/b~c") == "a~1b~0c"
std::string escape_pointer_token(std::string_view token);

// Appends "/" and the escaped token to pointer.
//   pointer == "/metadata/labels"; append_pointer_token(pointer, "app/x");
//   pointer == "/metadata/labels/app~1x"
void append_pointer_token(std::string& pointer, std::string_view token);

// The pointer of a run of tokens; json_pointer({}) == "" (the whole document):
//   json_pointer({"spec", "replicatedJobs", "0"}) == "/spec/replicatedJobs/0"
std::string json_pointer(const std::vector<std::string>& tokens);

// A pointer's tokens, "~1" and "~0" unescaped; nullopt when it is not a pointer (it does not start
// with "/", or a "~" is followed by neither 0 nor 1):
//   pointer_tokens("/metadata/labels/app~1x") == {"metadata", "labels", "app/x"}
//   pointer_tokens("") == {} (the whole document)
std::optional<std::vector<std::string>> pointer_tokens(std::string_view pointer);

}  // namespace jobset_webhook
