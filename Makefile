# Front door: every target prepares the machine, then calls cmake/ctest.
BUILD_DIR ?= build
# A second build against Open MPI, side by side with the MPICH one (docs/building.md).
OPENMPI_BUILD_DIR ?= build-openmpi
JOBS ?= 2

.PHONY: all setup build build-openmpi demo test bench install clean format

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

# The whole suite against MPICH, then everything that runs MPI against Open MPI.
test: build build-openmpi
	@sh scripts/setup.sh --test
	cd $(BUILD_DIR) && ctest --output-on-failure -j 1
	cd $(OPENMPI_BUILD_DIR) && ctest --output-on-failure -j 1 -L mpi

bench: build
	@sh scripts/bench.sh $(BUILD_DIR)

# make install [PREFIX=/opt/mpidle]: bin/, lib/ (libmpidle.so, the MPI-free libraries,
# the CMake package and pkg-config file), include/mpidle/, share/man/, share/doc/.
install: build
	cmake --install $(BUILD_DIR) $(if $(PREFIX),--prefix $(PREFIX))

format:
	@sh scripts/check-format.sh --fix

clean:
	rm -rf $(BUILD_DIR) $(OPENMPI_BUILD_DIR)
