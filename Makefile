# Front door: every target prepares the machine, then calls cmake/ctest.
BUILD_DIR ?= build
# A second build against Open MPI, side by side with the MPICH one (docs/building.md).
OPENMPI_BUILD_DIR ?= build-openmpi
# Checked builds: clang with ASan + UBSan and the fuzz harnesses (the tools, no
# profiler), and ThreadSanitizer on the profiler's thread-shared tables.
SANITIZE_BUILD_DIR ?= build-sanitize
TSAN_BUILD_DIR ?= build-tsan
# Both at -O1 with line tables only (what the sanitizers' documentation advises; -O2
# -g took a third longer to compile), the libraries batched into few translation
# units (their json-heavy files instantiate the same templates).
CHECKED_BUILD_FLAGS = -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_UNITY_BUILD=ON
CHECKED_CLANG_FLAGS = "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O1 -gline-tables-only -DNDEBUG" \
  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -gline-tables-only -DNDEBUG"
CHECKED_GCC_FLAGS = "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG" \
  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG"
JOBS ?= 2
# make fuzz: each reader's harness for this many executions (or seconds).
FUZZ_RUNS ?= 10000000
FUZZ_SECONDS ?= 7200
FUZZ_READERS = profile trace summary analysis machine prediction

.PHONY: all setup build build-openmpi build-openmpi-tests build-sanitize build-tsan demo test fuzz bench install clean format

all: build

setup:
	@sh scripts/setup.sh

$(BUILD_DIR)/CMakeCache.txt: | setup
	cmake -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=Release

build: setup $(BUILD_DIR)/CMakeCache.txt
	cmake --build $(BUILD_DIR) -j $(JOBS)

# The demo builds only what it runs (not the tests and benchmarks).
DEMO_TARGETS = mpidle mpidle_profiler mpidle-probe late_sender loop_nest
demo: setup $(BUILD_DIR)/CMakeCache.txt
	cmake --build $(BUILD_DIR) -j $(JOBS) --target $(DEMO_TARGETS)
	@sh scripts/demo.sh $(BUILD_DIR)

$(OPENMPI_BUILD_DIR)/CMakeCache.txt: | setup
	cmake -S . -B $(OPENMPI_BUILD_DIR) -DCMAKE_BUILD_TYPE=Release -DMPIDLE_MPI=openmpi

build-openmpi: setup $(OPENMPI_BUILD_DIR)/CMakeCache.txt
	cmake --build $(OPENMPI_BUILD_DIR) -j $(JOBS)

# make test runs only the MPI tests against Open MPI (the unit tests and benchmarks
# need no second MPI), so it builds only them and what they run.
OPENMPI_TEST_TARGETS = test_exports test_integration test_faults
build-openmpi-tests: setup $(OPENMPI_BUILD_DIR)/CMakeCache.txt
	cmake --build $(OPENMPI_BUILD_DIR) -j $(JOBS) --target $(OPENMPI_TEST_TARGETS)

$(SANITIZE_BUILD_DIR)/CMakeCache.txt: | setup
	CC=clang-14 CXX=clang++-14 cmake -S . -B $(SANITIZE_BUILD_DIR) $(CHECKED_BUILD_FLAGS) $(CHECKED_CLANG_FLAGS) \
	  -DMPIDLE_ENABLE_PROFILER=OFF -DMPIDLE_ENABLE_BENCH=OFF -DMPIDLE_SANITIZE=address,undefined \
	  -DMPIDLE_FUZZ=ON -DMPIDLE_REGULAR_BUILD=$(abspath $(BUILD_DIR))

build-sanitize: setup $(SANITIZE_BUILD_DIR)/CMakeCache.txt
	cmake --build $(SANITIZE_BUILD_DIR) -j $(JOBS)

$(TSAN_BUILD_DIR)/CMakeCache.txt: | setup
	cmake -S . -B $(TSAN_BUILD_DIR) $(CHECKED_BUILD_FLAGS) $(CHECKED_GCC_FLAGS) \
	  -DMPIDLE_SANITIZE=thread \
	  -DMPIDLE_ENABLE_BENCH=OFF

build-tsan: setup $(TSAN_BUILD_DIR)/CMakeCache.txt
	cmake --build $(TSAN_BUILD_DIR) -j $(JOBS) --target test_profiler

# The whole suite against MPICH, then everything that runs MPI against Open MPI,
# then the unit tests, fuzz smoke runs and every command under ASan + UBSan, and
# the profiler's tables under ThreadSanitizer. Tests that run MPI are RUN_SERIAL
# (nothing runs beside them); the others run $(JOBS) at a time. Under ASan the
# 10^8-event summary case (40 s there) is left out: the smaller fold cases cover
# the same code. Every run goes on after one fails; then the skipped tests and why
# (scripts/skipped-tests.py), and make fails if any run did.
test: build build-openmpi-tests build-sanitize build-tsan
	@sh scripts/setup.sh --test
	@status=0; \
	(cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS)) || status=1; \
	(cd $(OPENMPI_BUILD_DIR) && ctest --output-on-failure -j 1 -L mpi) || status=1; \
	(cd $(SANITIZE_BUILD_DIR) && ctest --output-on-failure -j $(JOBS) -R '^(model|settings|fleet records|sync|compress|analysis|report|fuzz|sanitize):' -E '10\^8 events') || status=1; \
	(cd $(TSAN_BUILD_DIR) && ctest --output-on-failure -j 1 -LE mpi -R '^profiler:') || status=1; \
	python3 scripts/skipped-tests.py $(BUILD_DIR) $(OPENMPI_BUILD_DIR) $(SANITIZE_BUILD_DIR) $(TSAN_BUILD_DIR); \
	if [ $$status -ne 0 ]; then echo "mpidle: make test: some tests failed (above)" >&2; fi; \
	exit $$status

# Long fuzzing of every reader (FUZZ_RUNS executions or FUZZ_SECONDS each).
fuzz: build-sanitize
	@for reader in $(FUZZ_READERS); do \
	  sh scripts/fuzz.sh --runs $(FUZZ_RUNS) --seconds $(FUZZ_SECONDS) \
	    $(SANITIZE_BUILD_DIR)/bin/fuzz_$$reader tests/fuzz/corpus/$$reader || exit 1; \
	done

bench: build build-openmpi
	@sh scripts/setup.sh --bench
	@sh scripts/bench.sh $(BUILD_DIR) $(OPENMPI_BUILD_DIR)

# make install [PREFIX=/opt/mpidle]: bin/, lib/ (libmpidle.so, the MPI-free libraries,
# the CMake package and pkg-config file), include/mpidle/, share/man/, share/doc/.
install: build
	cmake --install $(BUILD_DIR) $(if $(PREFIX),--prefix $(PREFIX))

format:
	@sh scripts/check-format.sh --fix

clean:
	rm -rf $(BUILD_DIR) $(OPENMPI_BUILD_DIR) $(SANITIZE_BUILD_DIR) $(TSAN_BUILD_DIR)
