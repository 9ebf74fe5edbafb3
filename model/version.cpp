#include "run_info.hpp"

namespace mpidle::model {

const char* mpidle_version() {
  return MPIDLE_VERSION;
}

}  // namespace mpidle::model
