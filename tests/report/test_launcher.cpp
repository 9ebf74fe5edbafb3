// `mpidle run` recognizes the launcher and adds what that launcher needs to forward
// the preload and the settings to every rank.
#include <catch2/catch.hpp>

#include "report/launch/launcher.hpp"

using namespace mpidle::report;

namespace {
std::string no_version(const std::string&) {
  return "";
}
}  // namespace

TEST_CASE("launchers are recognized by their names") {
  CHECK(recognize_launcher({"mpiexec.openmpi", "-n", "2", "./app"}, no_version) ==
        LauncherFamily::open_mpi);
  CHECK(recognize_launcher({"/opt/ompi/bin/orterun", "./app"}, no_version) ==
        LauncherFamily::open_mpi);
  CHECK(recognize_launcher({"prterun", "./app"}, no_version) == LauncherFamily::open_mpi);
  CHECK(recognize_launcher({"mpiexec.mpich", "-n", "2", "./app"}, no_version) ==
        LauncherFamily::hydra);
  CHECK(recognize_launcher({"mpiexec.hydra", "./app"}, no_version) == LauncherFamily::hydra);
  CHECK(recognize_launcher({"srun", "-n", "4", "./app"}, no_version) == LauncherFamily::slurm);
  CHECK(recognize_launcher({"./app"}, no_version) == LauncherFamily::other);
}

TEST_CASE("a bare mpirun or mpiexec is recognized by what --version prints") {
  // Names that resolve to nothing on this machine, so only the version can tell.
  const std::vector<std::string> command{"/nonexistent/bin/mpirun", "-n", "2", "./app"};
  CHECK(recognize_launcher(command, [](const std::string&) {
          return std::string("mpirun (Open MPI) 4.1.4\n");
        }) == LauncherFamily::open_mpi);
  CHECK(recognize_launcher(command, [](const std::string&) {
          return std::string("HYDRA build details:\n    Version: 4.0.2\n");
        }) == LauncherFamily::hydra);
  CHECK(recognize_launcher(command, no_version) == LauncherFamily::other);
  int asked = 0;
  recognize_launcher({"./my_launcher", "./app"}, [&](const std::string&) {
    ++asked;
    return std::string("Open MPI");
  });
  CHECK(asked == 0);  // only mpirun/mpiexec are asked: another program may not know --version
}

TEST_CASE("Open MPI's launcher gets -x for each setting and, for root, --allow-run-as-root") {
  const std::vector<std::string> command{"mpiexec.openmpi", "-n", "2", "./app", "-x", "1"};
  const auto as_root =
      forward_environment(command, LauncherFamily::open_mpi, {"LD_PRELOAD", "MPIDLE_OUTPUT"}, true);
  CHECK(as_root == std::vector<std::string>{"mpiexec.openmpi", "--allow-run-as-root", "-x",
                                            "LD_PRELOAD", "-x", "MPIDLE_OUTPUT", "-n", "2", "./app",
                                            "-x", "1"});
  const auto as_user =
      forward_environment(command, LauncherFamily::open_mpi, {"LD_PRELOAD"}, false);
  CHECK(as_user == std::vector<std::string>{"mpiexec.openmpi", "-x", "LD_PRELOAD", "-n", "2",
                                            "./app", "-x", "1"});
  const std::vector<std::string> already{"mpirun", "--allow-run-as-root", "./app"};
  const auto kept = forward_environment(already, LauncherFamily::open_mpi, {}, true);
  CHECK(kept == already);
}

TEST_CASE("launchers that forward the environment themselves are left alone") {
  const std::vector<std::string> command{"mpiexec.mpich", "-n", "2", "./app"};
  for (LauncherFamily f : {LauncherFamily::hydra, LauncherFamily::slurm, LauncherFamily::other}) {
    CHECK(forward_environment(command, f, {"LD_PRELOAD"}, true) == command);
  }
}
