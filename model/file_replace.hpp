#pragma once
// Writing a file whole, never through a link (docs/configuration.md, "Output"): the bytes go into
// a new file beside it, created with O_EXCL (which never follows a link, nor opens
// a file another made first), then renamed over the name, which replaces a link
// there instead of writing where it points. A reader sees the old file or the new
// one, never half of it. In a directory others can write (an MPIDLE_OUTPUT in
// /tmp), a planted profile.json or profile.json.partial link so truncates nothing
// of the writer's. No MPI.

#include <filesystem>
#include <string>
#include <string_view>

namespace mpidle::model {

// True if `path` now holds `bytes`; else false and `error` says why (nothing left
// behind). The new file's mode is 0666 less the umask, as a plain create's.
bool replace_file(const std::filesystem::path& path, std::string_view bytes, std::string& error);

}  // namespace mpidle::model
