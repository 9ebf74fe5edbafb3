#include "transport/parallel_trace_writer.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "transport/mpi_replay_network.hpp"

namespace mpidle::transport {
namespace {

// The shared trace file, opened by every process: with MPI-IO, or, where MPI-IO
// cannot open it (MPICH 4.0's ROMIO in a program that entered MPI through a
// session only), with POSIX calls at the same offsets.
class SharedFile {
 public:
  // Collective. Returns MPI_SUCCESS when every process opened the file, else this
  // process' MPI-IO error (MPI_SUCCESS when only others failed: see failed_here()).
  int open(MPI_Comm comm, const std::filesystem::path& file, std::uint64_t size) {
    const int opened =
        PMPI_File_open(comm, file.c_str(), MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &m_fh);
    m_failed_here = opened != MPI_SUCCESS;
    if (all(comm, opened == MPI_SUCCESS)) {
      const int sized = PMPI_File_set_size(m_fh, static_cast<MPI_Offset>(size));
      m_failed_here = sized != MPI_SUCCESS;
      if (all(comm, sized == MPI_SUCCESS)) return MPI_SUCCESS;
      PMPI_File_close(&m_fh);
      return m_failed_here ? sized : MPI_ERR_IO;
    }
    if (m_fh != MPI_FILE_NULL) PMPI_File_close(&m_fh);
    int me = 0;
    PMPI_Comm_rank(comm, &me);
    // Process 0 makes the file at its size before the others open it.
    if (me == 0) {
      m_fd = ::open(file.c_str(), O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC, 0644);
      if (m_fd >= 0 && ftruncate(m_fd, static_cast<off_t>(size)) != 0) close_fd();
    }
    const bool made = all(comm, me != 0 || m_fd >= 0);
    if (made && me != 0) m_fd = ::open(file.c_str(), O_WRONLY | O_CLOEXEC);
    if (made && all(comm, m_fd >= 0)) return MPI_SUCCESS;
    close_fd();
    return m_failed_here ? opened : MPI_ERR_IO;
  }
  bool failed_here() const { return m_failed_here; }

  // MPI-IO counts are int: writes go in pieces of at most 1 GiB.
  bool write_at(std::uint64_t offset, std::span<const std::byte> bytes) {
    constexpr std::size_t kMost = std::size_t{1} << 30;
    while (!bytes.empty()) {
      const std::size_t n = std::min(bytes.size(), kMost);
      if (m_fd >= 0) {
        const ssize_t wrote = pwrite(m_fd, bytes.data(), n, static_cast<off_t>(offset));
        if (wrote <= 0) return false;
        offset += static_cast<std::uint64_t>(wrote);
        bytes = bytes.subspan(static_cast<std::size_t>(wrote));
        continue;
      }
      if (PMPI_File_write_at(m_fh, static_cast<MPI_Offset>(offset), bytes.data(),
                             static_cast<int>(n), MPI_BYTE, MPI_STATUS_IGNORE) != MPI_SUCCESS) {
        return false;
      }
      offset += n;
      bytes = bytes.subspan(n);
    }
    return true;
  }

  bool close() {
    if (m_fd >= 0) return close_fd();
    return PMPI_File_close(&m_fh) == MPI_SUCCESS;
  }

 private:
  static bool all(MPI_Comm comm, bool mine) {
    int ok = mine, all_ok = 0;
    PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm);
    return all_ok != 0;
  }
  bool close_fd() {
    const bool closed = m_fd < 0 || ::close(m_fd) == 0;
    m_fd = -1;
    return closed;
  }

  MPI_File m_fh = MPI_FILE_NULL;
  int m_fd = -1;
  bool m_failed_here = false;
};

// The error's class in words: short, and the same words in every MPI (an error's
// own string can be a multi-line stack).
std::string error_class_text(int code) {
  int error_class = 0;
  if (PMPI_Error_class(code, &error_class) != MPI_SUCCESS)
    return "MPI error " + std::to_string(code);
  char text[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  if (PMPI_Error_string(error_class, text, &length) != MPI_SUCCESS) {
    return "MPI error class " + std::to_string(error_class);
  }
  return std::string(text, static_cast<std::size_t>(std::max(0, length)));
}

}  // namespace

void write_trace_parallel(MPI_Comm comm, const std::filesystem::path& file,
                          const model::Trace& tables, std::uint64_t ranks,
                          const std::vector<const model::RankTrace*>& mine) {
  int me = 0;
  PMPI_Comm_rank(comm, &me);
  const std::string head = model::encode_trace_head(tables, ranks);
  std::vector<model::RankSectionBytes> sections;
  sections.reserve(mine.size());
  std::uint64_t my_bytes = 0;
  for (const auto* r : mine) my_bytes += sections.emplace_back(*r).size();
  std::uint64_t before = 0, total = 0, my_ranks = mine.size(), ranks_before = 0;
  PMPI_Exscan(&my_bytes, &before, 1, MPI_UINT64_T, MPI_SUM, comm);
  PMPI_Exscan(&my_ranks, &ranks_before, 1, MPI_UINT64_T, MPI_SUM, comm);
  if (me == 0) before = ranks_before = 0;  // Exscan leaves process 0's results undefined
  PMPI_Allreduce(&my_bytes, &total, 1, MPI_UINT64_T, MPI_SUM, comm);
  const std::uint64_t index_at = head.size() + total;

  SharedFile out;
  const int opened = out.open(comm, file, index_at + model::trace_index_size(ranks));
  if (opened != MPI_SUCCESS) {
    throw MpiError("cannot create " + file.string() +
                   (out.failed_here() ? ": " + error_class_text(opened) : " on some ranks"));
  }
  int ok = 1, all_ok = 0;
  if (me == 0) {
    const std::string count = model::encode_trace_index_count(ranks);
    const std::string tail = model::encode_trace_index_tail(index_at);
    ok = out.write_at(0, std::as_bytes(std::span(head))) &&
         out.write_at(index_at, std::as_bytes(std::span(count))) &&
         out.write_at(index_at + 8 + 8 * ranks, std::as_bytes(std::span(tail)));
  }
  std::uint64_t at = head.size() + before;
  std::vector<std::uint64_t> starts;
  for (const auto& section : sections) {
    starts.push_back(at);
    for (const auto& piece : section.pieces()) {
      if (ok) ok = out.write_at(at, piece);
      at += piece.size();
    }
  }
  // This process' entries of the index.
  if (ok) ok = out.write_at(index_at + 8 + 8 * ranks_before, std::as_bytes(std::span(starts)));
  if (!out.close()) ok = 0;
  PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm);
  if (!all_ok) throw MpiError("cannot write " + file.string());
}

}  // namespace mpidle::transport
