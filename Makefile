# andgate — the commands. Everything builds through CMake into build/.
#   make deps     install what a fresh Debian machine lacks (idempotent)
#   make          build libandgate (.so/.a), the andgate CLI, tests, examples
#   make test     the whole suite: unit, semantics, bad input, and the semantics suite under
#                 ThreadSanitizer and AddressSanitizer+UBSan
#   make demo     the main job
#   make install  headers, libraries, CLI, pkg-config file, CMake package (PREFIX=/usr/local)
BUILD   ?= build
PREFIX  ?= /usr/local
JOBS    ?= $(shell nproc 2>/dev/null || echo 2)
CC      ?= cc
CMAKE_FLAGS ?=

.PHONY: all build deps test test-unit test-python test-tsan test-asan test-clang demo install clean

all: build

build:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_INSTALL_PREFIX=$(PREFIX) $(CMAKE_FLAGS) >/dev/null
	cmake --build $(BUILD) -j $(JOBS)

deps:
	./scripts/deps.sh

test: test-unit test-python test-clang test-tsan test-asan

test-unit: build
	cd $(BUILD) && ctest -j $(JOBS) --output-on-failure

# the report package (python/andgate_report): schema, plots, HTML, summary, CSV
test-python:
	cd python && python3 -m pytest -q tests

# -Werror clean with clang as well as gcc (builds only; the suite runs in the gcc and sanitizer builds)
test-clang:
	CC=clang cmake -S . -B $(BUILD)-clang -DCMAKE_BUILD_TYPE=Release >/dev/null
	cmake --build $(BUILD)-clang -j $(JOBS)

# Sanitizer builds run the semantics suite with fewer episodes (they are 5-20x slower).
test-tsan:
	CC=clang cmake -S . -B $(BUILD)-tsan -DCMAKE_BUILD_TYPE=Debug -DAG_SANITIZE=thread -DAG_BUILD_BENCH=OFF -DAG_TEST_EPISODES=100 >/dev/null
	cmake --build $(BUILD)-tsan -j $(JOBS)
	cd $(BUILD)-tsan && TSAN_OPTIONS=halt_on_error=1 ctest -j $(JOBS) --output-on-failure

test-asan:
	CC=clang cmake -S . -B $(BUILD)-asan -DCMAKE_BUILD_TYPE=Debug -DAG_SANITIZE=address,undefined -DAG_BUILD_BENCH=OFF -DAG_TEST_EPISODES=200 >/dev/null
	cmake --build $(BUILD)-asan -j $(JOBS)
	cd $(BUILD)-asan && ASAN_OPTIONS=detect_leaks=1 ctest -j $(JOBS) --output-on-failure

demo: deps build
	./scripts/demo.sh $(BUILD)

install: build
	cmake --install $(BUILD)

clean:
	rm -rf $(BUILD) $(BUILD)-clang $(BUILD)-tsan $(BUILD)-asan
