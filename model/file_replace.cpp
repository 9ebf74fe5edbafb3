#include "file_replace.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>

namespace mpidle::model {

bool replace_file(const std::filesystem::path& path, std::string_view bytes, std::string& error) {
  static std::atomic<unsigned> counter{0};
  // Unique to this process and call; O_EXCL refuses whatever is there already.
  const std::string temporary = path.string() + ".partial-" + std::to_string(::getpid()) + "-" +
                                std::to_string(counter.fetch_add(1));
  const int fd =
      ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
  if (fd < 0) {
    error = std::string(std::strerror(errno));
    return false;
  }
  std::size_t written = 0;
  while (written < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + written, bytes.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      error = std::string(n < 0 ? std::strerror(errno) : "short write");
      ::close(fd);
      ::unlink(temporary.c_str());
      return false;
    }
    written += static_cast<std::size_t>(n);
  }
  if (::close(fd) != 0 || ::rename(temporary.c_str(), path.c_str()) != 0) {
    error = std::string(std::strerror(errno));
    ::unlink(temporary.c_str());
    return false;
  }
  return true;
}

}  // namespace mpidle::model
