#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>

namespace mpidle::test {
// Failed assertions of this process so far: a test that asks to be reported as
// skipped after one failed is a failure (tests/integration/process.cpp, skip_test).
int g_failed_assertions = 0;
}  // namespace mpidle::test

namespace {

struct CountFailures : Catch::TestEventListenerBase {
  using TestEventListenerBase::TestEventListenerBase;
  bool assertionEnded(const Catch::AssertionStats& stats) override {
    if (!stats.assertionResult.isOk()) ++mpidle::test::g_failed_assertions;
    return true;
  }
};

}  // namespace

CATCH_REGISTER_LISTENER(CountFailures)
