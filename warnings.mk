# The project's warning flags, shared by the Makefile (gcc) and
# tests/fuzz/fuzz.mk (clang) so that the fuzzers are held to the same
# warnings as the build. WERROR=-Werror (the default) makes them errors;
# WERROR= only reports them.
WERROR ?= -Werror
CWARN = -Wall -Wextra -Wvla -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wformat=2 $(WERROR)
CXXWARN = -Wall -Wextra -Wvla -Wshadow -Wformat=2 $(WERROR)
# gcc only (clang has no such warning): snprintf into a fixed buffer that
# may cut the text is how crate truncates on purpose.
WARN = $(CWARN) -Wno-format-truncation
