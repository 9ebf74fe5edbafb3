# Front door: every target prepares the machine, then calls cmake/ctest.
BUILD_DIR ?= build
JOBS ?= 2

.PHONY: all setup build demo test bench install clean format

all: build

setup:
	@sh scripts/setup.sh

$(BUILD_DIR)/CMakeCache.txt: | setup
	cmake -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=Release

build: setup $(BUILD_DIR)/CMakeCache.txt
	cmake --build $(BUILD_DIR) -j $(JOBS)

demo: build
	@sh scripts/demo.sh $(BUILD_DIR)

test: build
	@sh scripts/setup.sh --test
	cd $(BUILD_DIR) && ctest --output-on-failure -j 1

bench: build
	@sh scripts/bench.sh $(BUILD_DIR)

install: build
	cmake --install $(BUILD_DIR)

format:
	@sh scripts/check-format.sh --fix

clean:
	rm -rf $(BUILD_DIR)
