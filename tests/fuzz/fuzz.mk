# Builds the libFuzzer targets with clang: every project source except
# src/main.c and src/launcher.c (of ui/, the pure text code alone), instrumented for coverage + ASan + UBSan, and one binary per
# tests/fuzz/fuzz_<target>.c linked against them.  Invoked by tests/fuzz/run-fuzz.sh
# (make -f tests/fuzz/fuzz.mk TARGETS="parse json ..."), with the project's
# warnings (warnings.mk).  Kept apart from the
# main Makefile so the gcc build never needs clang.
-include config.mk
include warnings.mk

FUZZ_BUILD ?= tests/fuzz/build
FUZZ_CC ?= clang
FUZZ_CXX ?= clang++
TARGETS ?= parse

SAN = -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
FUZZ_CFLAGS = -std=c11 -D_GNU_SOURCE -DCRATE_VERSION='"fuzz"' \
	-Isrc -I. -O1 -g $(SAN) $(DEP_CFLAGS) -pthread -MMD -MP $(CWARN)
LIB_SRC := $(filter-out src/main.c src/launcher.c src/query.c,$(wildcard src/*.c src/*/*.c)) \
	ui/text.c
LIB_CXX_SRC := $(wildcard src/*/*.cpp)
LIB_OBJ := $(LIB_SRC:%.c=$(FUZZ_BUILD)/obj/%.o) $(LIB_CXX_SRC:%.cpp=$(FUZZ_BUILD)/obj/%.o)
FUZZ_CXXFLAGS = -std=c++17 -D_GNU_SOURCE -Isrc -I. -O1 -g $(SAN) $(DEP_CFLAGS) -pthread -MMD -MP $(CXXWARN)

# run-fuzz.sh builds `lib` (the archive of every source), then `all` for
# each target, so that a target that does not link fails alone.
all: $(TARGETS:%=$(FUZZ_BUILD)/fuzz_%)
lib: $(FUZZ_BUILD)/libcrate-fuzz.a

$(FUZZ_BUILD)/libcrate-fuzz.a: $(LIB_OBJ)
	@rm -f $@
	@ar rcs $@ $^

$(FUZZ_BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	@echo "  FUZZCC  $<"
	@$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<

$(FUZZ_BUILD)/obj/%.o: %.cpp
	@mkdir -p $(dir $@)
	@echo "  FUZZCXX $<"
	@$(FUZZ_CXX) $(FUZZ_CXXFLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<

# Linked by clang++: the TagLib shim needs the C++ runtime.
$(FUZZ_BUILD)/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_BUILD)/libcrate-fuzz.a
	@echo "  FUZZLD  $@"
	@$(FUZZ_CC) $(FUZZ_CFLAGS) -DCRATE_FUZZ_MAIN -fsanitize=fuzzer-no-link -c -o $@.o $<
	@$(FUZZ_CXX) $(SAN) -fsanitize=fuzzer -o $@ $@.o \
		$(FUZZ_BUILD)/libcrate-fuzz.a $(DEP_LIBS) -lm -pthread

-include $(shell find $(FUZZ_BUILD)/obj -name '*.d' 2>/dev/null)
