# gdsim - the only entry point for building, testing, installing.
#
#   make                      build/libgdsim.so, build/libgdsim.a, build/gdsim: one plain
#                             optimised build (-O2), with short progress lines (V=1: the
#                             full commands)
#   make PGO=1                the release build: profile-guided and link-time optimised
#                             (built twice, with a training run between; 7 to 16 % fewer
#                             instructions per replay; docs/PERFORMANCE.md items 35, 40).
#                             LTO=1 alone: link-time optimised, built once
#   make POPCNT=0             without the POPCNT instruction (by default used where the
#                             building machine has it), for any x86-64 CPU
#   make demo                 replay the bundled sample trace and print the report
#   make check                build and run every test, in parallel (-jN; all cores when
#                             no -j is given, -j1 for one at a time)
#   make check SANITIZER=address|undefined
#   make check-pgo            the release build (PGO=1, in build/release) and the tests again
#                             against it (.ci/run)
#   make bench                throughput and memory benchmark of the release build (PGO=1,
#                             built in build/bench so its figures stay comparable)
#   make install PREFIX=DIR   the build found in build/ (whatever flags made it: it says
#                             which; a plain one when there is none): library, headers,
#                             CLI, gdsim.pc, the CMake package (lib/cmake/gdsim), the
#                             Python package and the trace scripts (gen_trace.py,
#                             kineto2gdt.py) under DIR
#   make SYSTEMC_HOME=DIR     build against the SystemC installed in DIR (DIR/include,
#                             DIR/lib-linux64 or DIR/lib) instead of the system's
#   make systemc-flags        show which SystemC the build uses
#   make deps                 install missing Debian packages (check runs it first; demo
#                             runs deps-build: only what building needs)
#   make docs                 regenerate docs/CONFIG.md from the key table

PREFIX ?= /usr/local
SANITIZER ?=
PYTHON ?= python3

ifeq ($(SANITIZER),)
  BUILD := build
  SANFLAGS :=
else ifeq ($(SANITIZER),address)
  BUILD := build/asan
  SANFLAGS := -fsanitize=address -fno-omit-frame-pointer
else ifeq ($(SANITIZER),undefined)
  BUILD := build/ubsan
  SANFLAGS := -fsanitize=undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
else
  $(error SANITIZER must be 'address' or 'undefined' (got '$(SANITIZER)'))
endif

# make install takes the build it finds in $(BUILD) as it is: the flags that made it
# ($(BUILD)/build.mk, written with it) are this make's own, so nothing is rebuilt for
# want of a flag; one given on the command line still wins (and rebuilds with it).
# (Read with $(file), not include: make would remake an included file first.)
# Only for make install alone: with other goals (make check install) the build is theirs.
BUILD_FOUND :=
ifeq ($(MAKECMDGOALS),install)
  ifneq ($(wildcard $(BUILD)/build.mk),)
    BUILD_FOUND := 1
    $(eval $(file <$(BUILD)/build.mk))
  endif
endif

# SystemC: SYSTEMC_HOME=DIR (an Accellera-style install), else pkg-config's `systemc`
# where present, else the compiler's default paths (Debian's libsystemc-dev).
# SYSTEMC_CFLAGS / SYSTEMC_LIBS on the command line override what is found, e.g.
# SYSTEMC_CFLAGS="-I... -DSC_CPLUSPLUS=201402L" for a SystemC built for C++14.
SYSTEMC_HOME ?=
ifneq ($(SYSTEMC_HOME),)
  ifeq ($(wildcard $(SYSTEMC_HOME)/include/systemc.h),)
    $(error SYSTEMC_HOME=$(SYSTEMC_HOME): no include/systemc.h there)
  endif
  SYSTEMC_LIBDIR := $(firstword $(patsubst %/,%,$(dir $(wildcard $(addprefix $(SYSTEMC_HOME)/,lib-linux64/libsystemc.so lib64/libsystemc.so lib/libsystemc.so lib-linux64/libsystemc.a lib64/libsystemc.a lib/libsystemc.a)))))
  ifeq ($(SYSTEMC_LIBDIR),)
    $(error SYSTEMC_HOME=$(SYSTEMC_HOME): no libsystemc in lib-linux64/, lib64/ or lib/)
  endif
  SYSTEMC_CFLAGS ?= -I$(SYSTEMC_HOME)/include
  SYSTEMC_LIBS ?= -L$(SYSTEMC_LIBDIR) -lsystemc
else
  SYSTEMC_CFLAGS ?= $(shell pkg-config --cflags systemc 2>/dev/null)
  SYSTEMC_LIBS ?= $(shell pkg-config --libs systemc 2>/dev/null || echo -lsystemc)
endif
SYSTEMC_CFLAGS := $(SYSTEMC_CFLAGS)
SYSTEMC_LIBS := $(SYSTEMC_LIBS)
comma := ,
empty :=
space := $(empty) $(empty)
# programs find a SystemC outside the default paths at run time without LD_LIBRARY_PATH
SYSTEMC_RPATH := $(patsubst -L%,-Wl$(comma)-rpath$(comma)%,$(filter -L%,$(SYSTEMC_LIBS)))

CC := gcc
CXX := g++
WARN := -Wall -Wextra -Werror
# -fno-schedule-insns2: GCC 12's scheduling pass after register allocation moved an
# inlined struct copy (rep movsq) above the stores to its source in the profile-guided
# build, so tb/test_replay.c's traces got a device of zeros (a wrong-code bug; without
# that pass the order stays, and replays are as fast: docs/PERFORMANCE.md item 35)
OPT ?= -O2 -g -fno-schedule-insns2
# POPCNT=1, the default where the compiler targets x86-64 and the building machine's CPU
# has the instruction (every x86-64 CPU since 2008): -mpopcnt. The fill-the-lake over a
# large GPU's GPCs counts SMs per level with population counts, a dozen instructions
# each without it (the x86-64 baseline): 8,448 SMs replay about 14 % faster per CTA
# with it (docs/PERFORMANCE.md item 36). POPCNT=0 builds for any x86-64 CPU.
ifeq ($(origin POPCNT),undefined)
  POPCNT := $(shell case "$$($(CC) -dumpmachine 2>/dev/null)" in (x86_64*) grep -qw popcnt /proc/cpuinfo 2>/dev/null && echo 1;; esac)
  ifneq ($(POPCNT),1)
    POPCNT := 0
  endif
endif
ifeq ($(POPCNT),1)
  ARCH_FLAGS := -mpopcnt
else ifeq ($(POPCNT),0)
  ARCH_FLAGS :=
else
  $(error POPCNT must be 0 or 1 (got '$(POPCNT)'))
endif
# model/ holds one folder per hardware block plus base/ (DESIGN.md layout); every
# folder is on the include path, so a new block is found by adding its folder.
MODEL_DIRS := $(sort $(patsubst %/,%,$(dir $(wildcard model/*/*.h model/*/*.hpp model/*/*.c model/*/*.cpp))))
CPPFLAGS := -Iinclude -Imodel $(addprefix -I,$(MODEL_DIRS)) -D_GNU_SOURCE $(SYSTEMC_CFLAGS)
# Profile-guided optimisation (docs/PERFORMANCE.md item 35), PGO=1: the release build,
# an opt-in step as in most projects (CPython's --enable-optimizations). The library and
# the CLI are built twice: first instrumented (a make with PGO_PHASE=gen, into the same
# object files: a static function's profile is known by its object's path), and that
# gdsim replays the training traces of scripts/pgo_train.sh, which writes the counts
# beside the objects; then again, with them ($(BUILD)/pgo.stamp). A change to a source
# runs both again. PGO=0, the default: one plain build. Never with a sanitizer.
ifneq ($(SANITIZER),)
  override PGO := 0
endif
PGO ?= 0
ifneq ($(filter-out 0 1,$(PGO)),)
  $(error PGO must be 0 or 1 (got '$(PGO)'))
endif
# Link-time optimisation, LTO=1 (the default with PGO=1): the library and the CLI are
# optimised across objects at their link. Fat LTO objects: libgdsim.a also holds
# ordinary code, so a program links it without the compiler's LTO plugin (or with
# another compiler), and the test programs link it so (-fno-lto: no LTO step per
# program; the library and the CLI they test through are the LTO ones).
LTO ?= $(PGO)
ifeq ($(LTO),1)
  LTO_FLAGS := -flto=auto -ffat-lto-objects
  NO_LTO := -fno-lto
else ifeq ($(LTO),0)
  LTO_FLAGS :=
  NO_LTO :=
else
  $(error LTO must be 0 or 1 (got '$(LTO)'))
endif
PGO_PHASE ?=
PGO_USE :=
PGO_STAMP :=
ifeq ($(PGO_PHASE),gen)
  PGO_USE := -fprofile-generate -fprofile-update=single
else ifeq ($(PGO),1)
  PGO_USE := -fprofile-use -fprofile-partial-training -Wno-missing-profile
  PGO_STAMP := $(BUILD)/pgo.stamp
endif
CFLAGS := -std=c11 $(OPT) $(LTO_FLAGS) $(ARCH_FLAGS) -fPIC $(WARN) $(SANFLAGS)
CXXFLAGS := -std=c++17 $(OPT) $(LTO_FLAGS) $(ARCH_FLAGS) -fPIC $(WARN) $(SANFLAGS)
LIBS := $(SYSTEMC_LIBS) $(SYSTEMC_RPATH) -lz -lstdc++ -lm -lpthread
CHECK_LIBS := $(shell pkg-config --libs check 2>/dev/null || echo -lcheck -lsubunit -lrt -lm -lpthread)

C_SRC := $(wildcard $(addsuffix /*.c,$(MODEL_DIRS)))
CXX_SRC := $(wildcard model/*.cpp) $(wildcard $(addsuffix /*.cpp,$(MODEL_DIRS))) $(wildcard cwrap/*.cpp)
# (the C++ first: they take longest to compile, so make -j starts them first)
OBJ := $(CXX_SRC:%.cpp=$(BUILD)/obj/%.o) $(C_SRC:%.c=$(BUILD)/obj/%.o)
DEP := $(OBJ:.o=.d)

TESTS_C := $(wildcard tb/test_*.c)
TESTS_CXX := $(wildcard tb/tb_*.cpp)
TEST_BINS := $(TESTS_C:tb/%.c=$(BUILD)/tb/%) $(TESTS_CXX:tb/%.cpp=$(BUILD)/tb/%)

# the example virtual platform with gdsim::gpu in it (tb/vp/, run by tb/test_vp.sh)
VP_BINS := $(BUILD)/tb/vp_example $(BUILD)/tb/vp_replay $(BUILD)/tb/vp_coexist $(BUILD)/tb/vp_hostile

LIB_SO := $(BUILD)/libgdsim.so
LIB_A := $(BUILD)/libgdsim.a
CLI := $(BUILD)/gdsim

.PHONY: all demo check check-pgo check-slurm bench fuzz install deps deps-build docs clean check-header \
	systemc-flags FORCE
all: $(LIB_SO) $(LIB_A) $(CLI)

# Short progress lines (CC model/pp/pp.c, LD build/libgdsim.so); V=1 shows the commands,
# make -s neither (make's flags are known only when a recipe runs).
V ?= 0
ifeq ($(V),1)
  Q :=
  say = @:
else
  Q := @
  say = @$(if $(findstring s,$(firstword x$(MAKEFLAGS))),:,printf '  %-5s %s\n' '$(1)' '$(2)')
endif

# The flags a build was made with: SystemC, PGO, OPT, POPCNT and LTO where it is not
# PGO's (so that make install PGO=1 on a plain build is also link-time optimised), in
# make's syntax.
# Objects and programs are rebuilt when they change (e.g. a build/ made with Debian's
# SystemC, then make SYSTEMC_HOME=DIR), and make install reads them back (above).
BUILD_MK := $(BUILD)/build.mk
SYSTEMC_GIVEN = $$(filter command% environment%,$$(origin SYSTEMC_HOME) $$(origin SYSTEMC_CFLAGS) $$(origin SYSTEMC_LIBS))
$(BUILD_MK): FORCE
	@mkdir -p $(dir $@)
	@{ echo '# the flags $(BUILD)/ was built with (written by make; make install reuses them)'; \
	   echo 'ifeq ($(SYSTEMC_GIVEN),)'; \
	   echo '  SYSTEMC_CFLAGS := $(SYSTEMC_CFLAGS)'; \
	   echo '  SYSTEMC_LIBS := $(SYSTEMC_LIBS)'; \
	   echo 'endif'; \
	   echo 'PGO := $(PGO)'; $(if $(filter-out $(PGO),$(LTO)),echo 'LTO := $(LTO)';) \
	   echo 'OPT := $(OPT)'; echo 'POPCNT := $(POPCNT)'; } >$@.new
	@if cmp -s $@.new $@; then rm -f $@.new; else mv -f $@.new $@; fi
FORCE:

# what the build is, in words (make install says it)
BUILD_WORDS = $(if $(filter 11,$(PGO)$(LTO)),profile-guided and link-time optimised (PGO=1),$(if $(filter 10,$(PGO)$(LTO)),profile-guided (PGO=1 LTO=0),$(if $(filter 01,$(PGO)$(LTO)),link-time optimised (LTO=1),plain (PGO=0)))), OPT=$(OPT), POPCNT=$(POPCNT), SystemC $(or $(strip $(SYSTEMC_CFLAGS) $(filter -L%,$(SYSTEMC_LIBS))),from the compiler's default paths)

systemc-flags:
	@echo 'SYSTEMC_CFLAGS=$(SYSTEMC_CFLAGS)'
	@echo 'SYSTEMC_LIBS=$(SYSTEMC_LIBS) $(SYSTEMC_RPATH)'

$(BUILD)/obj/%.o: %.c $(BUILD_MK) $(PGO_STAMP)
	@mkdir -p $(dir $@)
	$(call say,CC,$<)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $(PGO_USE) -MMD -MP -c $< -o $@

$(BUILD)/obj/%.o: %.cpp $(BUILD_MK) $(PGO_STAMP)
	@mkdir -p $(dir $@)
	$(call say,CXX,$<)
	$(Q)$(CXX) $(CPPFLAGS) $(CXXFLAGS) $(PGO_USE) -MMD -MP -c $< -o $@

$(LIB_A): $(OBJ)
	@rm -f $@
	$(call say,AR,$@)
	$(Q)ar rcs $@ $^

# PGO=1: the instrumented build and its training run (the sources, headers and scripts
# it depends on: any change makes a new profile). The counts of an earlier profile go
# first: a build never mixes two.
PGO_INPUTS := $(C_SRC) $(CXX_SRC) $(wildcard include/*.h include/gdsim/*.hpp $(addsuffix /*.h,$(MODEL_DIRS)) \
	    $(addsuffix /*.hpp,$(MODEL_DIRS))) cli/gdsim.c cli/compare.c cli/compare.h cli/preinit.c scripts/pgo_train.sh \
	    scripts/gen_trace.py scripts/kineto2gdt.py
# The instrumented make is given this build's flags (make install reads them from
# build.mk, which that make would not); the earlier counts are cleared beside the CLI
# and under obj/, not in the other builds below $(BUILD) (build/asan, build/bench).
$(BUILD)/pgo.stamp: $(PGO_INPUTS) $(BUILD_MK)
	$(Q)rm -f $(OBJ) $(LIB_A) $(CLI)
	$(Q)rm -f $(BUILD)/*.gcda; if [ -d $(BUILD)/obj ]; then find $(BUILD)/obj -name '*.gcda' -delete; fi
	$(call say,PGO,instrumented build)
	@$(MAKE) --no-print-directory PGO_PHASE=gen PGO=$(PGO) LTO=$(LTO) OPT='$(OPT)' POPCNT=$(POPCNT) \
	    SYSTEMC_CFLAGS='$(SYSTEMC_CFLAGS)' SYSTEMC_LIBS='$(SYSTEMC_LIBS)' $(CLI)
	$(call say,PGO,training replays (scripts/pgo_train.sh))
	$(Q)scripts/pgo_train.sh $(CLI) $(BUILD)/pgo
	$(Q)rm -f $(CLI)
	$(call say,PGO,build with the counts of the training run)
	@touch $@

# the soname changes with the major version (the ABI of include/gdsim.h)
SO_MAJOR := $(shell sed -n 's/^\#define GD_VERSION_MAJOR \([0-9]*\)/\1/p' include/gdsim.h)
SO_VERSION := $(shell sed -n 's/^\#define GD_VERSION_STRING "\(.*\)"/\1/p' include/gdsim.h)
$(LIB_SO): $(OBJ)
	$(call say,LD,$@)
	$(Q)$(CXX) -shared $(LTO_FLAGS) $(SANFLAGS) $(PGO_USE) -Wl,-soname,libgdsim.so.$(SO_MAJOR) -o $@ $^ $(LIBS)
	$(Q)ln -sf libgdsim.so $(BUILD)/libgdsim.so.$(SO_MAJOR)

$(CLI): cli/gdsim.c cli/compare.c cli/compare.h cli/preinit.c $(LIB_A) include/gdsim.h $(PGO_STAMP)
	@mkdir -p $(dir $@)
	$(call say,LD,$@)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $(PGO_USE) -Iinclude cli/gdsim.c cli/compare.c cli/preinit.c -o $@ $(LIB_A) $(LIBS)

# The test programs link libgdsim.so, the library as built: with PGO=1 they test the
# profile-guided, link-time optimised code that ships (GCC 12's wrong-code bug of
# docs/PERFORMANCE.md item 35 showed only there), and each link takes a fraction of a
# second (no LTO step of its own: $(NO_LTO)). The library exports the C core's
# functions they call; they find it beside them ($ORIGIN). One links libgdsim.a
# statically (the fat objects' ordinary code with LTO=1): the allocation-failure sweep
# wraps the C core's malloc family (tb/test_alloc_fail.c), and the linker's --wrap
# reaches only what it links. -u sc_main: tests that use only the C core still need the
# shim's weak sc_main, which libsystemc refers to.
TEST_LINK = $(LIB_SO) -Wl,-rpath,'$$ORIGIN/..'
$(BUILD)/tb/test_alloc_fail: TEST_LINK = -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=strdup $(LIB_A)
$(BUILD)/tb/test_alloc_fail: $(LIB_A)
$(BUILD)/tb/test_%: tb/test_%.c tb/tb_util.h $(LIB_SO)
	@mkdir -p $(dir $@)
	$(call say,CC,$<)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $(NO_LTO) -Itb $< -o $@ -Wl,-u,sc_main $(TEST_LINK) $(CHECK_LIBS) $(LIBS)

$(BUILD)/tb/tb_%: tb/tb_%.cpp tb/tb_util.h include/gdsim/gpu.hpp $(LIB_SO)
	@mkdir -p $(dir $@)
	$(call say,CXX,$<)
	$(Q)$(CXX) $(CPPFLAGS) $(CXXFLAGS) $(NO_LTO) -Itb $< -o $@ -Wl,-u,sc_main $(TEST_LINK) $(CHECK_LIBS) $(LIBS)

# the example platform links libgdsim.a, as tb/vp_cmake's static variant does
$(BUILD)/tb/vp_%: tb/vp/vp_%.cpp tb/vp/platform.hpp tb/vp/driver.hpp include/gdsim/gpu.hpp $(LIB_A)
	@mkdir -p $(dir $@)
	$(call say,CXX,$<)
	$(Q)$(CXX) $(CPPFLAGS) $(CXXFLAGS) $(NO_LTO) -Itb/vp $< -o $@ $(LIB_A) $(LIBS)

$(BUILD)/gen_config_doc: tb/gen_config_doc.c $(LIB_SO)
	$(call say,CC,$<)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $(NO_LTO) $< -o $@ -Wl,-u,sc_main $(LIB_SO) -Wl,-rpath,'$$ORIGIN' $(LIBS)

# deps: everything make check uses; deps-build: what building and the demo need
deps:
	@SYSTEMC_HOME="$(SYSTEMC_HOME)" scripts/deps.sh
deps-build:
	@SYSTEMC_HOME="$(SYSTEMC_HOME)" scripts/deps.sh --build

# The public header compiles on its own as C99 and as C++.
check-header:
	@mkdir -p $(BUILD)
	$(call say,CHECK,include/gdsim.h include/gdsim/gpu.hpp)
	$(Q)$(CC) -std=c99 -Wall -Wextra -pedantic -Werror -fsyntax-only -x c include/gdsim.h
	$(Q)$(CXX) -std=c++11 -Wall -Wextra -pedantic -Werror -fsyntax-only -x c++ include/gdsim.h
	$(Q)$(CXX) -std=c++17 -Wall -Wextra -pedantic -Werror -fsyntax-only -Iinclude -x c++ include/gdsim/gpu.hpp

# make -j: check, demo and bench build through a recursive make (after deps). Given with
# other goals (make -j all check), this make runs one recipe at a time, so it and that
# make never write the same files at once; the recursive makes still run in parallel.
ifneq ($(filter check check-pgo check-slurm demo bench,$(MAKECMDGOALS)),)
  ifneq ($(words $(MAKECMDGOALS)),1)
    .NOTPARALLEL:
  endif
endif
# Jobs for those recursive makes and for the tests: what -j said (make's flags are
# known only when a recipe runs), all cores when no -j was given.
NPROC := $(shell nproc 2>/dev/null || echo 1)
JOBS = $(or $(patsubst -j%,%,$(filter -j%,$(MAKEFLAGS))),$(if $(filter -j,$(MAKEFLAGS)),$(NPROC)),$(NPROC))
SUBMAKE = $(MAKE) --no-print-directory $(if $(filter -j%,$(MAKEFLAGS)),,-j$(NPROC))

# the fuzz harnesses as plain programs (gcc, tb/fuzz/driver.c) that replay a corpus:
# tb/test_fuzz_corpus.sh runs them on tb/fuzz/corpus/ and tb/bad/ in make check
FUZZ_NAMES := trace config topology compare
FUZZ_REPLAY := $(FUZZ_NAMES:%=$(BUILD)/tb/fuzz/replay_%)
$(BUILD)/tb/fuzz/replay_%: tb/fuzz/fuzz_%.c tb/fuzz/driver.c $(LIB_SO) cli/compare.c
	@mkdir -p $(dir $@)
	$(call say,CC,$<)
	$(Q)$(CC) $(CPPFLAGS) -Icli $(CFLAGS) $(NO_LTO) tb/fuzz/fuzz_$*.c tb/fuzz/driver.c \
	    $(if $(filter compare,$*),cli/compare.c) -o $@ -Wl,-u,sc_main $(LIB_SO) -Wl,-rpath,'$$ORIGIN/../..' $(LIBS)

# The tests, in parallel (scripts/run_tests.sh: a line per test with its time, the
# slowest ten and one summary line). The longest start first (15 s or more each on 2
# cores, longest first: those that build a copy of the tree, then the slow replays), so
# that none of them starts last and keeps the others waiting.
TEST_SCRIPTS := $(wildcard tb/test_*.sh tb/test_*.py)
TEST_FIRST := $(foreach t,systemc_home.sh layout.sh meta.sh install.sh plots.py bad.sh validate.py tmp_clean.sh, \
	$(filter tb/test_$(t),$(TEST_SCRIPTS)))
TESTS := $(strip $(TEST_FIRST) $(filter-out $(TEST_FIRST),$(TEST_SCRIPTS)) $(TEST_BINS))
check: deps
	@+$(SUBMAKE) all $(TEST_BINS) $(VP_BINS) $(FUZZ_REPLAY) $(BUILD)/gen_config_doc check-header
	@scripts/run_tests.sh -j $(JOBS) $(BUILD) $(TESTS)

# The release build (PGO=1, profile-guided and link-time optimised) in its own folder,
# and every test against it: its objects are compiled differently (the wrong-code bug
# of docs/PERFORMANCE.md item 35 showed only there). .ci/run runs it.
check-pgo:
	@+$(SUBMAKE) check PGO=1 BUILD=build/release

# The sweep as a Slurm job array on a one-node cluster started on this machine (installs
# slurmctld, slurmd, munge and parallel when missing; runs as root); .ci/run runs it.
check-slurm: deps
	@+$(SUBMAKE) all
	@sh tb/slurm/check_slurm.sh $(BUILD)

demo: deps-build
	@+$(SUBMAKE) all
	$(CLI) replay traces/sample.gdt.gz --kernels-csv $(BUILD)/sample_kernels.csv
	@echo "(per-kernel table written to $(BUILD)/sample_kernels.csv)"

# The benchmark measures the release build (PGO=1), in a folder of its own: its figures
# (docs/PERFORMANCE.md) stay comparable whatever build/ holds.
BENCH_BUILD := build/bench
bench: deps
	@+$(SUBMAKE) all PGO=1 BUILD=$(BENCH_BUILD)
	@scripts/bench.sh $(BENCH_BUILD)

# make fuzz: the libFuzzer harnesses (tb/fuzz/fuzz_*.c, clang, installed when missing)
# under ASan and UBSan, FUZZ_SECONDS each, on a working corpus under $(BUILD)/fuzz/
# seeded from tb/fuzz/corpus/, tb/bad/ and the examples; a crash leaves its input there
# (crash-*), to be added to tb/fuzz/corpus/NAME/ once fixed (docs/RELIABILITY.md).
FUZZ_SECONDS ?= 60
FUZZ_CC = clang -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -D_GNU_SOURCE -Iinclude \
	    -Imodel/base -Imodel/trace -Imodel/sm -Imodel/cwd
# the trace reader and what it calls, no SystemC
FUZZ_TRACE_SRC = model/trace/trace.c model/trace/aql.c model/trace/condensed.c model/trace/topology.c \
	    model/cwd/cga.c model/sm/occupancy.c model/sm/alloc.c model/sm/waves.c model/base/gd_util.c \
	    model/base/config.c model/base/cta_rules.c
FUZZ_RUN = -max_total_time=$(FUZZ_SECONDS) -timeout=10 -rss_limit_mb=2048 -print_final_stats=1
fuzz: deps
	@SYSTEMC_HOME="$(SYSTEMC_HOME)" scripts/deps.sh clang
	@mkdir -p $(addprefix $(BUILD)/fuzz/corpus_,$(FUZZ_NAMES))
	$(FUZZ_CC) tb/fuzz/fuzz_topology.c model/trace/topology.c model/base/gd_util.c -o $(BUILD)/fuzz/fuzz_topology -lm
	$(FUZZ_CC) tb/fuzz/fuzz_trace.c $(FUZZ_TRACE_SRC) -o $(BUILD)/fuzz/fuzz_trace -lm -lz
	$(FUZZ_CC) tb/fuzz/fuzz_config.c $(FUZZ_TRACE_SRC) -o $(BUILD)/fuzz/fuzz_config -lm -lz
	$(FUZZ_CC) -Icli tb/fuzz/fuzz_compare.c cli/compare.c -o $(BUILD)/fuzz/fuzz_compare -lm
	cp tb/fuzz/corpus/trace/* tb/bad/*.gdt $(BUILD)/fuzz/corpus_trace/
	cp tb/data/configs/*.cfg tb/bad/*.cfg tb/bad/rules_*.txt $(BUILD)/fuzz/corpus_config/
	cp traces/topologies/*.topo $(BUILD)/fuzz/corpus_topology/
	cp tb/fuzz/corpus/compare/* $(BUILD)/fuzz/corpus_compare/
	cd $(BUILD)/fuzz && ./fuzz_trace $(FUZZ_RUN) -dict=$(CURDIR)/tb/fuzz/trace.dict corpus_trace
	cd $(BUILD)/fuzz && ./fuzz_config $(FUZZ_RUN) corpus_config
	cd $(BUILD)/fuzz && ./fuzz_topology $(FUZZ_RUN) corpus_topology
	cd $(BUILD)/fuzz && ./fuzz_compare $(FUZZ_RUN) corpus_compare

docs: $(BUILD)/gen_config_doc
	$(BUILD)/gen_config_doc > docs/CONFIG.md

# what the CMake package records of SystemC: its include directories, its other
# compile flags, the library file itself (from -L dirs, else the compiler's search path)
SYSTEMC_INCLUDE_DIRS = $(subst $(space),;,$(strip $(abspath $(patsubst -I%,%,$(filter -I%,$(SYSTEMC_CFLAGS))))))
SYSTEMC_OPTIONS = $(subst $(space),;,$(strip $(filter-out -I%,$(SYSTEMC_CFLAGS))))
SYSTEMC_LIBRARY = $(abspath $(firstword $(wildcard $(foreach d,$(patsubst -L%,%,$(filter -L%,$(SYSTEMC_LIBS))),$(d)/libsystemc.so $(d)/libsystemc.a)) \
	$(shell $(CXX) -print-file-name=libsystemc.so)))

# the Python package goes where pip would put a pure package under PREFIX
PY_DIR = $(shell $(PYTHON) -c 'import sysconfig; print(sysconfig.get_path("purelib", vars={"base": "$(abspath $(PREFIX))"}))')
install: all
	@echo "make install: $(if $(BUILD_FOUND),the build found in $(BUILD)/,no build in $(BUILD)/ yet: built one): $(BUILD_WORDS)"
	install -d $(PREFIX)/lib $(PREFIX)/include $(PREFIX)/bin $(PREFIX)/lib/pkgconfig
	install -m 644 $(LIB_A) $(PREFIX)/lib/libgdsim.a
	install -m 755 $(LIB_SO) $(PREFIX)/lib/libgdsim.so.$(SO_VERSION)
	ln -sf libgdsim.so.$(SO_VERSION) $(PREFIX)/lib/libgdsim.so.$(SO_MAJOR)
	ln -sf libgdsim.so.$(SO_MAJOR) $(PREFIX)/lib/libgdsim.so
	install -d $(PREFIX)/include/gdsim
	install -m 644 include/gdsim.h $(PREFIX)/include/gdsim.h
	install -m 644 include/gdsim/gpu.hpp $(PREFIX)/include/gdsim/gpu.hpp
	install -m 755 $(CLI) $(PREFIX)/bin/gdsim
	sed -e 's|@PREFIX@|$(abspath $(PREFIX))|g' -e 's|@VERSION@|$(SO_VERSION)|g' \
	    -e 's|@SYSTEMC_CFLAGS@|$(SYSTEMC_CFLAGS)|g' -e 's|@SYSTEMC_LIBS@|$(SYSTEMC_LIBS) $(SYSTEMC_RPATH)|g' \
	    gdsim.pc.in > $(PREFIX)/lib/pkgconfig/gdsim.pc
	install -d $(PREFIX)/lib/cmake/gdsim
	for f in gdsimConfig gdsimConfigVersion; do \
	    sed -e 's|@VERSION@|$(SO_VERSION)|g' -e 's|@MAJOR@|$(SO_MAJOR)|g' \
	        -e 's|@SYSTEMC_INCLUDE_DIRS@|$(SYSTEMC_INCLUDE_DIRS)|g' -e 's|@SYSTEMC_OPTIONS@|$(SYSTEMC_OPTIONS)|g' \
	        -e 's|@SYSTEMC_LIBRARY@|$(SYSTEMC_LIBRARY)|g' cmake/$$f.cmake.in > $(PREFIX)/lib/cmake/gdsim/$$f.cmake || exit 1; \
	done
	install -d $(PY_DIR)/gdsim $(PREFIX)/share/gdsim/scripts
	install -m 644 python/gdsim/__init__.py $(PY_DIR)/gdsim/__init__.py
	echo 'LIBRARY = "$(abspath $(PREFIX))/lib/libgdsim.so"  # written by make install' > $(PY_DIR)/gdsim/_libpath.py
	install -m 644 scripts/gdtrace.py $(PREFIX)/share/gdsim/scripts/gdtrace.py
	install -m 755 scripts/gen_trace.py scripts/kineto2gdt.py $(PREFIX)/share/gdsim/scripts/
	ln -sf ../share/gdsim/scripts/gen_trace.py $(PREFIX)/bin/gen_trace.py
	ln -sf ../share/gdsim/scripts/kineto2gdt.py $(PREFIX)/bin/kineto2gdt.py

clean:
	rm -rf build

-include $(DEP)
