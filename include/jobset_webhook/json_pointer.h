#pragma once

// RFC 6901 JSON Pointers: the one place a pointer is spelled and its tokens escaped. A patch's
// paths (patch/json_patch.h), a default's place and a manifest's positions (the CLI's marks) are
// all such pointers.

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

}  // namespace jobset_webhook
