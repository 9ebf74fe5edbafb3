#include "parallel_trace_writer.hpp"

#include <algorithm>
#include <cstdint>
#include <string>

#include "mpi_replay_network.hpp"

namespace mpidle::replay {
namespace {

// MPI-IO counts are int: write in pieces of at most 1 GiB.
bool write_at(MPI_File fh, std::uint64_t offset, std::span<const std::byte> bytes) {
  constexpr std::size_t kMost = std::size_t{1} << 30;
  while (!bytes.empty()) {
    const std::size_t n = std::min(bytes.size(), kMost);
    if (PMPI_File_write_at(fh, static_cast<MPI_Offset>(offset), bytes.data(), static_cast<int>(n),
                           MPI_BYTE, MPI_STATUS_IGNORE) != MPI_SUCCESS) {
      return false;
    }
    offset += n;
    bytes = bytes.subspan(n);
  }
  return true;
}

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

  MPI_File fh = MPI_FILE_NULL;
  const int opened =
      PMPI_File_open(comm, file.c_str(), MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
  int ok = opened == MPI_SUCCESS;
  int all_ok = 0;
  PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm);
  if (!all_ok) {
    if (fh != MPI_FILE_NULL) PMPI_File_close(&fh);
    throw MpiError("cannot create " + file.string() +
                   (ok ? " on some ranks" : ": " + error_class_text(opened)));
  }
  ok = PMPI_File_set_size(fh, static_cast<MPI_Offset>(index_at + model::trace_index_size(ranks))) ==
       MPI_SUCCESS;
  if (ok && me == 0) {
    const std::string count = model::encode_trace_index_count(ranks);
    const std::string tail = model::encode_trace_index_tail(index_at);
    ok = write_at(fh, 0, std::as_bytes(std::span(head))) &&
         write_at(fh, index_at, std::as_bytes(std::span(count))) &&
         write_at(fh, index_at + 8 + 8 * ranks, std::as_bytes(std::span(tail)));
  }
  std::uint64_t at = head.size() + before;
  std::vector<std::uint64_t> starts;
  for (const auto& section : sections) {
    starts.push_back(at);
    for (const auto& piece : section.pieces()) {
      if (ok) ok = write_at(fh, at, piece);
      at += piece.size();
    }
  }
  // This process' entries of the index.
  if (ok) ok = write_at(fh, index_at + 8 + 8 * ranks_before, std::as_bytes(std::span(starts)));
  if (PMPI_File_close(&fh) != MPI_SUCCESS) ok = 0;
  PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm);
  if (!all_ok) throw MpiError("cannot write " + file.string());
}

}  // namespace mpidle::replay
