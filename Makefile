# cuzktrace: make | make check | make demo | make bench | make scale | make deps | make install | make clean
# V=1 shows command lines; DEVELOPER=1 adds -Werror; SANITIZE=address,undefined instruments the
# reader and the unit tests (never the preload library).
CC ?= cc
PREFIX ?= /usr/local
DESTDIR ?=
B ?= build

WARN := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wformat=2 -Wvla
BASE := -std=gnu11 -O2 -g $(WARN) -Iinclude -MMD -MP
ifdef DEVELOPER
BASE += -Werror
endif
SAN := $(if $(SANITIZE),-fsanitize=$(SANITIZE) -fno-omit-frame-pointer,)
PRE_CFLAGS := $(BASE) -D_GNU_SOURCE -fPIC -fvisibility=hidden -ftls-model=initial-exec -fno-builtin \
	-fno-omit-frame-pointer -Ipreload
RD_CFLAGS := $(BASE) $(SAN) -Ireader
PRE_LIBS := -lzstd -lunwind -lpthread -ldl -lm
RD_LIBS := -lzstd -lm -ldw -lelf -liberty -lz -lpthread

ifneq ($(V),1)
Q := @
msg = @printf '  %-6s %s\n' $(1) $(2);
endif

PRE_SRC := $(wildcard preload/*.c)
RD_SRC := $(wildcard reader/*.c)
PRE_OBJ := $(PRE_SRC:%.c=$(B)/%.o)
RD_OBJ := $(RD_SRC:%.c=$(B)/%.o)
RD_LIBOBJ := $(filter-out $(B)/reader/main.o,$(RD_OBJ))
UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(B)/tests/%)
PROG_SRC := $(wildcard tests/progs/*.c)
PROG_BIN := $(PROG_SRC:tests/progs/%.c=$(B)/progs/%)
# mialloc links the system's mimalloc (libmimalloc-dev): built where it is installed (the
# integration tests say when it is skipped)
HAVE_MIMALLOC := $(shell printf '\043include <mimalloc.h>\nint main(void) { return mi_malloc(1) == 0; }\n' | \
	$(CC) -x c -o /dev/null - -lmimalloc >/dev/null 2>&1 && echo 1)
ifneq ($(HAVE_MIMALLOC),1)
PROG_BIN := $(filter-out $(B)/progs/mialloc,$(PROG_BIN))
endif
EX_SRC := $(wildcard examples/*.c)
EX_BIN := $(EX_SRC:examples/%.c=$(B)/examples/%)

LIB := $(B)/libcuzktrace.so
REPORT := $(B)/cuzktrace-report

.PHONY: all check unit sanitized integration demo bench scale deps install clean
all: $(LIB) $(REPORT) $(EX_BIN)

# Rebuild everything when the flags change.
FLAGS_NOW := $(CC) $(PRE_CFLAGS) | $(RD_CFLAGS)
$(B)/.flags: FORCE
	@mkdir -p $(B)
	@echo '$(FLAGS_NOW)' | cmp -s - $@ || echo '$(FLAGS_NOW)' > $@
.PHONY: FORCE

# operator new may throw through its hook, whose cleanup takes the guard down (hooks_cxx.c)
$(B)/preload/hooks_cxx.o: PRE_CFLAGS += -fexceptions
$(B)/preload/modules.o: PRE_CFLAGS += -fexceptions
$(B)/preload/%.o: preload/%.c $(B)/.flags
	@mkdir -p $(dir $@)
	$(call msg,CC,$<)$(CC) $(PRE_CFLAGS) -c $< -o $@

$(B)/reader/%.o: reader/%.c $(B)/.flags
	@mkdir -p $(dir $@)
	$(call msg,CC,$<)$(CC) $(RD_CFLAGS) -c $< -o $@

# -z now: every symbol bound at load; a call bound lazily on first use runs the loader's
# resolver (several KiB of stack for its register save) inside a hook, on whatever stack
# the program gave the thread: a writev to stderr from a handler on a small alternate stack
# crashed there
# run as a program, the library says what it is (preload/bootstrap.c: ckt_run_as_program)
comma := ,
LIB_ENTRY := $(if $(filter x86_64 aarch64,$(shell uname -m)),-Wl$(comma)-e$(comma)ckt_run_as_program)
$(LIB): $(PRE_OBJ) preload/exports.map Makefile
	$(call msg,LD,$@)$(CC) -shared -Wl,--version-script=preload/exports.map -Wl,-z,defs -Wl,-z,now \
		-Wl,-soname,libcuzktrace.so $(LIB_ENTRY) -o $@ $(PRE_OBJ) $(PRE_LIBS)

$(REPORT): $(RD_OBJ)
	$(call msg,LD,$@)$(CC) $(SAN) -o $@ $(RD_OBJ) $(RD_LIBS)

# Unit tests link the module objects, not the programs (heaptrack does the same).
$(B)/tests/test_%: tests/unit/test_%.c $(RD_LIBOBJ) $(B)/preload/record.o $(B)/.flags
	@mkdir -p $(dir $@)
	$(call msg,CC,$@)$(CC) $(RD_CFLAGS) -Ipreload -Itests/unit -o $@ $< $(RD_LIBOBJ) \
		$(B)/preload/record.o -lcmocka $(RD_LIBS)

# test_symbolize's fixture: overlapping symbols, assembled (no C library)
$(B)/tests/symfix.so: tests/unit/symfix.s
	@mkdir -p $(dir $@)
	$(call msg,AS,$@)$(CC) -shared -nostdlib -o $@ $<

$(B)/tests/test_symbolize: $(B)/tests/symfix.so

# the table of the tracer's own mappings, with 8 slots (to fill it)
$(B)/tests/ownmaps_small.o: preload/ownmaps.c $(B)/.flags
	@mkdir -p $(dir $@)
	$(call msg,CC,$@)$(CC) $(PRE_CFLAGS) -DCKT_OWN_SLOTS=8 -c $< -o $@
$(B)/tests/test_ownmaps: tests/unit/test_ownmaps.c $(B)/tests/ownmaps_small.o $(B)/.flags
	@mkdir -p $(dir $@)
	$(call msg,CC,$@)$(CC) $(RD_CFLAGS) -Ipreload -Itests/unit -o $@ $< $(B)/tests/ownmaps_small.o -lcmocka

# the writer's running summary, with the logging it needs
$(B)/tests/test_summary: tests/unit/test_summary.c $(B)/preload/summary.o $(B)/preload/log.o \
		$(B)/preload/ownmaps.o $(B)/.flags
	@mkdir -p $(dir $@)
	$(call msg,CC,$@)$(CC) $(RD_CFLAGS) -Ipreload -Itests/unit -o $@ $< $(B)/preload/summary.o \
		$(B)/preload/log.o $(B)/preload/ownmaps.o -lcmocka

# the replay's set of live mappings with chunks of 4 ranges (to split and merge them often)
$(B)/tests/replay_small.o: reader/replay.c $(B)/.flags
	@mkdir -p $(dir $@)
	$(call msg,CC,$@)$(CC) $(RD_CFLAGS) -DCKT_RANGE_CHUNK=4 -c $< -o $@
$(B)/tests/test_ranges: tests/unit/test_ranges.c $(B)/tests/replay_small.o \
		$(filter-out $(B)/reader/replay.o,$(RD_LIBOBJ)) $(B)/preload/record.o $(B)/.flags
	@mkdir -p $(dir $@)
	$(call msg,CC,$@)$(CC) $(RD_CFLAGS) -Ipreload -Itests/unit -o $@ $< $(B)/tests/replay_small.o \
		$(filter-out $(B)/reader/replay.o,$(RD_LIBOBJ)) $(B)/preload/record.o -lcmocka $(RD_LIBS)

# glibc's dl* functions by version
$(B)/tests/test_dlnext: tests/unit/test_dlnext.c $(B)/preload/dlnext.o $(B)/.flags
	@mkdir -p $(dir $@)
	$(call msg,CC,$@)$(CC) $(RD_CFLAGS) -Ipreload -Itests/unit -o $@ $< $(B)/preload/dlnext.o -lcmocka

# the default mode's sampled-pointer set and filter, with the logging it needs
# (sample.c built again with its race points, which the library has not)
$(B)/tests/sample_races.o: preload/sample.c $(B)/.flags
	@mkdir -p $(dir $@)
	$(call msg,CC,$@)$(CC) $(PRE_CFLAGS) -DCKT_TEST_RACES -c $< -o $@
$(B)/tests/test_sample: tests/unit/test_sample.c $(B)/tests/sample_races.o $(B)/preload/log.o \
		$(B)/preload/ownmaps.o $(B)/preload/dlnext.o $(B)/preload/elfsym.o $(B)/.flags
	@mkdir -p $(dir $@)
	$(call msg,CC,$@)$(CC) $(RD_CFLAGS) -Ipreload -Itests/unit -o $@ $< $(B)/tests/sample_races.o \
		$(B)/preload/log.o $(B)/preload/ownmaps.o $(B)/preload/dlnext.o $(B)/preload/elfsym.o -lcmocka -lpthread -ldl -lm

# Test programs: -O2 like shipped code; every test allocation escapes into a volatile global.
$(B)/progs/%: tests/progs/%.c $(B)/.flags
	@mkdir -p $(dir $@)
	$(call msg,CC,$@)$(CC) -std=gnu11 -D_GNU_SOURCE -O2 -g -Wall -Iinclude -o $@ $< -lpthread -ldl

# a test double of jemalloc under tikv-jemallocator's names, for ownjem and a Rust program's
# #[global_allocator] (tests/integration/t_allocators.sh links it with rustc -l static=rjem)
$(B)/progs/librjem.a: tests/progs/lib/rjem.c $(B)/.flags
	@mkdir -p $(dir $@)
	$(call msg,AR,$@)$(CC) -std=gnu11 -O2 -g -Wall -fPIC -c -o $@.o $< && rm -f $@ && ar rcs $@ $@.o && rm -f $@.o
$(B)/progs/ownjem: tests/progs/ownjem.c $(B)/progs/librjem.a $(B)/.flags
	@mkdir -p $(dir $@)
	$(call msg,CC,$@)$(CC) -std=gnu11 -D_GNU_SOURCE -O2 -g -Wall -o $@ $< $(B)/progs/librjem.a

$(B)/progs/mialloc: tests/progs/mialloc.c $(B)/.flags
	@mkdir -p $(dir $@)
	$(call msg,CC,$@)$(CC) -std=gnu11 -D_GNU_SOURCE -O2 -g -Wall -o $@ $< -lmimalloc

# exitcode linked statically: no loader, so LD_PRELOAD does nothing in it (the exec's line)
$(B)/progs/exitcode_static: tests/progs/exitcode.c $(B)/.flags
	@mkdir -p $(dir $@)
	$(call msg,CC,$@)$(CC) -std=gnu11 -D_GNU_SOURCE -O2 -Wall -Iinclude -static -o $@ $<

# ... and as a static-pie program (Rust's crt-static, gcc -static-pie): ET_DYN without a
# loader, told from the loader itself by DF_1_PIE; left out where the toolchain makes none
$(B)/progs/exitcode_spie: tests/progs/exitcode.c $(B)/.flags
	@mkdir -p $(dir $@)
	$(call msg,CC,$@)$(CC) -std=gnu11 -D_GNU_SOURCE -O2 -Wall -Iinclude -static-pie -o $@ $< 2>/dev/null || rm -f $@

# diffprog rebuilt: the same functions, other code (another build-id), for --diff --modules
$(B)/progs/diffprog_v2: tests/progs/diffprog.c $(B)/.flags
	@mkdir -p $(dir $@)
	$(call msg,CC,$@)$(CC) -std=gnu11 -D_GNU_SOURCE -DDIFFPROG_V2 -O2 -g -Wall -Iinclude -o $@ $< -lpthread -ldl

# diffprog linked without a build-id (lld's and mold's default), for a rebuild the reader cannot
# tell by build-id
$(B)/progs/diffprog_nobid: tests/progs/diffprog.c $(B)/.flags
	@mkdir -p $(dir $@)
	$(call msg,CC,$@)$(CC) -std=gnu11 -D_GNU_SOURCE -O2 -g -Wall -Iinclude -Wl,--build-id=none -o $@ $< -lpthread -ldl

# and rebuilt so: other code, no build-id (the reader tells it by its segments' span)
$(B)/progs/diffprog_v2_nobid: tests/progs/diffprog.c $(B)/.flags
	@mkdir -p $(dir $@)
	$(call msg,CC,$@)$(CC) -std=gnu11 -D_GNU_SOURCE -DDIFFPROG_V2 -O2 -g -Wall -Iinclude -Wl,--build-id=none -o $@ $< -lpthread -ldl

# a program that exports its own fallbacks of the phase API
$(B)/progs/apistubs: tests/progs/apistubs.c $(B)/.flags
	@mkdir -p $(dir $@)
	$(call msg,CC,$@)$(CC) -std=gnu11 -O2 -g -Wall -rdynamic -o $@ $<

# a program that needs the shared libstdc++ (by path: no C++ compiler needed), when present
LIBSTDCXX := $(shell $(CC) -print-file-name=libstdc++.so.6)
$(B)/progs/cxxnew: tests/progs/cxxnew.c $(B)/.flags
	@mkdir -p $(dir $@)
	$(call msg,CC,$@)if [ -f "$(LIBSTDCXX)" ]; then $(CC) -std=gnu11 -O2 -g -Wall -o $@ $< -Wl,--no-as-needed $(LIBSTDCXX); \
	else echo "libstdc++.so.6 not found: cxxnew not built" >&2; fi

# the toy allocator that serves operator new itself throws through libstdc++ (-fexceptions:
# the exception unwinds through its frame); a C++ program that catches it
$(B)/progs/libnewalloc.so: tests/progs/lib/newalloc.c $(B)/.flags
	@mkdir -p $(dir $@)
	$(call msg,CC,$@)$(CC) -std=gnu11 -O2 -g -fPIC -fexceptions -shared -o $@ $< -Wl,--no-as-needed $(LIBSTDCXX)
$(B)/progs/libcxxplug.so: tests/progs/lib/cxxplug.cc $(B)/.flags
	@mkdir -p $(dir $@)
	$(call msg,CXX,$@)$(CXX) -std=c++17 -O2 -g -fPIC -shared -o $@ $<
$(B)/progs/libcxxplug_static.so $(B)/progs/libcxxplug_static2.so: $(B)/progs/libcxxplug_static%.so: tests/progs/lib/cxxplug.cc $(B)/.flags
	@mkdir -p $(dir $@)
	$(call msg,CXX,$@)$(CXX) -std=c++17 -O2 -g -fPIC -shared -static-libstdc++ -static-libgcc $(if $*,-DCXX_PAD) -o $@ $<
$(B)/progs/libdlsymshim.so: tests/progs/lib/dlsymshim.c $(B)/.flags
	@mkdir -p $(dir $@)
	$(call msg,CC,$@)$(CC) -std=gnu11 -O2 -g -fPIC -shared -o $@ $< -ldl
# cxxlocal's "nested" mode: a C++ library whose constructor calls new with its registry's mutex
# held, and one that depends on it and registers from its own constructor
$(B)/progs/libcxxinner.so: tests/progs/lib/cxxinner.cc $(B)/.flags
	@mkdir -p $(dir $@)
	$(call msg,CXX,$@)$(CXX) -std=c++17 -O2 -g -fPIC -shared -o $@ $<
$(B)/progs/libcxxouter.so: tests/progs/lib/cxxouter.cc $(B)/progs/libcxxinner.so $(B)/.flags
	@mkdir -p $(dir $@)
	$(call msg,CXX,$@)$(CXX) -std=c++17 -O2 -g -fPIC -shared -o $@ $< -L$(B)/progs -lcxxinner -Wl,-rpath,'$$ORIGIN'
# cxxlocal's "other", "needed" and "highbias" modes: a C library defining operator new, C++
# code reaching libstdc++ through another library or after that one, a library moved below its
# link address
$(B)/progs/libcxxown.so: tests/progs/lib/cxxown.c $(B)/.flags
	@mkdir -p $(dir $@)
	$(call msg,CC,$@)$(CC) -std=gnu11 -O2 -g -fPIC -shared -o $@ $<
$(B)/progs/libcxxvia.so: tests/progs/lib/cxxuse.cc $(B)/progs/libcxxplug.so $(B)/.flags
	@mkdir -p $(dir $@)
	$(call msg,CXX,$@)$(CXX) -std=c++17 -O2 -g -fPIC -c -o $@.o $< && \
		$(CC) -shared -o $@ $@.o -Wl,--no-as-needed -L$(B)/progs -lcxxplug -Wl,-rpath,'$$ORIGIN' && rm -f $@.o
$(B)/progs/libcxxfirst.so: tests/progs/lib/cxxuse.cc $(B)/progs/libcxxown.so $(B)/.flags
	@mkdir -p $(dir $@)
	$(call msg,CXX,$@)$(CXX) -std=c++17 -O2 -g -fPIC -shared -o $@ $< -Wl,--no-as-needed -L$(B)/progs -lcxxown -Wl,-rpath,'$$ORIGIN'
CXX_DEPS := $(foreach i,$(shell seq 1 40),$(B)/progs/libcxxdep$(i).so)
$(CXX_DEPS): $(B)/progs/libcxxdep%.so: tests/progs/lib/cxxdep.c $(B)/.flags
	@mkdir -p $(dir $@)
	$(call msg,CC,$@)$(CC) -std=gnu11 -O2 -fPIC -shared -DDEP=$* -o $@ $<
$(B)/progs/libcxxmany.so: tests/progs/lib/cxxuse.cc $(CXX_DEPS) $(B)/.flags
	@mkdir -p $(dir $@)
	$(call msg,CXX,$@)$(CXX) -std=c++17 -O2 -g -fPIC -shared -o $@ $< -Wl,--no-as-needed -L$(B)/progs $(foreach i,$(shell seq 1 40),-lcxxdep$(i)) -Wl,-rpath,'$$ORIGIN'
$(B)/progs/libcxxhigh.so: tests/progs/lib/cxxhigh.c $(B)/.flags
	@mkdir -p $(dir $@)
	$(call msg,CC,$@)$(CC) -std=gnu11 -O2 -g -fPIC -shared -Wl,-Ttext-segment=0x7ffff0000000 -o $@ $<
$(B)/progs/cxxthrow $(B)/progs/cxxdollar $(B)/progs/phdrthrow: $(B)/progs/%: tests/progs/%.cc $(B)/.flags
	@mkdir -p $(dir $@)
	$(call msg,CXX,$@)$(CXX) -std=c++17 -O2 -g -Wall -o $@ $<

# two static functions of one name, in samename.c and lib/samename2.c (--diff tells them apart)
$(B)/progs/samename: tests/progs/samename.c tests/progs/lib/samename2.c $(B)/.flags
	@mkdir -p $(dir $@)
	$(call msg,CC,$@)$(CC) -std=gnu11 -D_GNU_SOURCE -O2 -g -Wall -o $@ tests/progs/samename.c tests/progs/lib/samename2.c

# one program under two names (--diff's warning when no function matches)
$(B)/progs/renamed_%: tests/progs/renamed.c $(B)/.flags
	@mkdir -p $(dir $@)
	$(call msg,CC,$@)$(CC) -std=gnu11 -D_GNU_SOURCE -DRENAMED_PREFIX=$*_ -O2 -g -Wall -o $@ $<

# libraries of the test programs (ctor links libctorlib; unwind_stress dlopens libplainlib;
# unwind_switch runs with libunwcount or libmapwatch preloaded after the tracer)
$(B)/progs/lib%.so: tests/progs/lib/%.c $(B)/.flags
	@mkdir -p $(dir $@)
	$(call msg,CC,$@)$(CC) -std=gnu11 -O2 -g -fPIC -shared -o $@ $<
$(B)/progs/libnofn.so: tests/progs/lib/nofn.s
	@mkdir -p $(dir $@)
	$(call msg,AS,$@)$(CC) -g -fPIC -shared -o $@ $<
$(B)/progs/libctorpush.so: tests/progs/lib/ctorpush.c $(B)/.flags
	@mkdir -p $(dir $@)
	$(call msg,CC,$@)$(CC) -std=gnu11 -O2 -g -fPIC -shared -Iinclude -o $@ $<
$(B)/progs/ctorpop: tests/progs/ctorpop.c $(B)/progs/libctorpush.so
	@mkdir -p $(dir $@)
	$(call msg,CC,$@)$(CC) -std=gnu11 -O2 -g -Iinclude -o $@ $< -L$(B)/progs -lctorpush -Wl,-rpath,'$$ORIGIN'
$(B)/progs/jemwrap: tests/progs/jemwrap.c $(B)/progs/libjemalloc_wrap.so
	@mkdir -p $(dir $@)
	$(call msg,CC,$@)$(CC) -std=gnu11 -O2 -g -o $@ $< -L$(B)/progs -ljemalloc_wrap -Wl,-rpath,'$$ORIGIN'
$(B)/progs/ctor: tests/progs/ctor.c $(B)/progs/libctorlib.so
	@mkdir -p $(dir $@)
	$(call msg,CC,$@)$(CC) -std=gnu11 -O2 -g -o $@ $< -L$(B)/progs -lctorlib -Wl,-rpath,'$$ORIGIN'

# a profiler that unwinds with libunwind in its signal handler
$(B)/progs/sigprof: tests/progs/sigprof.c $(B)/.flags
	@mkdir -p $(dir $@)
	$(call msg,CC,$@)$(CC) -std=gnu11 -D_GNU_SOURCE -O1 -g -Wall -o $@ $< -lunwind -lpthread

# a program that sizes libunwind's cache (-O2: at -O1 the tracer before its fix hung in 4 runs
# of 6 rather than 6)
$(B)/progs/unwflush: tests/progs/unwflush.c $(B)/.flags
	@mkdir -p $(dir $@)
	$(call msg,CC,$@)$(CC) -std=gnu11 -D_GNU_SOURCE -O2 -g -Wall -o $@ $< -lunwind -lpthread

# export their own malloc, as a program with a built-in allocator does
$(B)/progs/ownmalloc $(B)/progs/exitsig $(B)/progs/ownnew: $(B)/progs/%: tests/progs/%.c $(B)/.flags
	@mkdir -p $(dir $@)
	$(call msg,CC,$@)$(CC) -std=gnu11 -O1 -g -rdynamic -o $@ $<
# glibc's mcheck, turned on by linking libmcheck.a (served by libc_malloc_debug.so when preloaded)
$(B)/progs/mchecked: tests/progs/mchecked.c $(B)/.flags
	@mkdir -p $(dir $@)
	$(call msg,CC,$@)$(CC) -std=gnu11 -O1 -g -o $@ $< -lmcheck
# a non-PIE executable that takes malloc's and realloc's addresses: canonical PLT stubs
$(B)/progs/nopieaddr: tests/progs/nopieaddr.c $(B)/.flags
	@mkdir -p $(dir $@)
	$(call msg,CC,$@)$(CC) -std=gnu11 -O1 -g -no-pie -fno-pie -o $@ $<
# ... as aliases of functions of other names, as allocators define them
$(B)/progs/ownalias: tests/progs/ownmalloc.c $(B)/.flags
	@mkdir -p $(dir $@)
	$(call msg,CC,$@)$(CC) -std=gnu11 -O1 -g -rdynamic -DOWN_ALIAS -o $@ $<
# ... and with a library that takes 40 thread-specific keys before the tracer starts
$(B)/progs/ownmalloc_keys: tests/progs/ownmalloc.c $(B)/progs/libmanykeys.so
	@mkdir -p $(dir $@)
	$(call msg,CC,$@)$(CC) -std=gnu11 -O1 -g -rdynamic -o $@ $< -L$(B)/progs -Wl,--no-as-needed \
		-lmanykeys -Wl,-rpath,'$$ORIGIN'
$(B)/progs/keythreads: tests/progs/keythreads.c $(B)/progs/libmanykeys.so $(B)/.flags
	@mkdir -p $(dir $@)
	$(call msg,CC,$@)$(CC) -std=gnu11 -O1 -g -o $@ $< -L$(B)/progs -Wl,--no-as-needed \
		-lmanykeys -Wl,-rpath,'$$ORIGIN' -lpthread

# linked against the tracer itself, no rpath: it runs with the library in LD_PRELOAD only
$(B)/progs/linkapi: tests/progs/lib/linkapi.c $(LIB)
	@mkdir -p $(dir $@)
	$(call msg,CC,$@)$(CC) -std=gnu11 -O1 -g -Iinclude -o $@ $< -L$(B) -lcuzktrace

$(B)/examples/%: examples/%.c $(B)/.flags
	@mkdir -p $(dir $@)
	$(call msg,CC,$@)$(CC) -std=gnu11 -D_GNU_SOURCE -O2 -g -Wall -Iinclude -o $@ $< -lpthread -ldl

unit: $(UNIT_BIN)
	$(Q)fail=0; for t in $(UNIT_BIN); do echo "== $$t"; $$t || fail=1; done; exit $$fail

integration: $(LIB) $(REPORT) $(PROG_BIN) $(B)/progs/diffprog_v2 $(B)/progs/diffprog_nobid $(B)/progs/diffprog_v2_nobid $(B)/progs/exitcode_static $(B)/progs/exitcode_spie $(B)/progs/renamed_a $(B)/progs/renamed_b $(B)/progs/apistubs $(B)/progs/ctor $(B)/progs/ownmalloc_keys $(B)/progs/ownalias $(B)/progs/nopieaddr $(B)/progs/libtlsbare.so $(B)/progs/libtlsplug.so $(B)/progs/libtlsshim.so $(B)/progs/libplainlib.so $(B)/progs/libdlloop.so $(B)/progs/libfdswap.so $(B)/progs/libunwcount.so $(B)/progs/libmapwatch.so $(B)/progs/libunwflush.so $(B)/progs/libslowmunmap.so $(B)/progs/libslowctor.so $(B)/progs/libnofn.so $(B)/progs/libmmapalloc.so $(B)/progs/libfakeclock.so $(B)/progs/libnewalloc.so $(B)/progs/libsizeless.so $(B)/progs/cxxnew $(B)/progs/cxxthrow $(B)/progs/cxxdollar $(B)/progs/phdrthrow $(B)/progs/libcxxplug.so $(B)/progs/libcxxplug_static.so $(B)/progs/libcxxplug_static2.so $(B)/progs/libcxxouter.so $(B)/progs/libcxxvia.so $(B)/progs/libcxxfirst.so $(B)/progs/libcxxhigh.so $(B)/progs/libcxxmany.so $(B)/progs/libdlsymshim.so $(B)/progs/libnomemfd.so $(B)/progs/libdwfail.so $(B)/progs/libquickblock.so $(B)/progs/libctorsmall.so $(B)/progs/linkapi
	$(Q)bash tests/integration/run.sh

check: deps
	$(Q)$(MAKE) --no-print-directory all unit sanitized integration

# the reader once more with AddressSanitizer and UndefinedBehaviorSanitizer, for the
# integration tests' sanitizer checks (tests/integration/t_sanitize.sh)
sanitized:
	$(Q)$(MAKE) --no-print-directory B=build/san SANITIZE=address,undefined build/san/cuzktrace-report

demo: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)bash examples/demo.sh

$(B)/bench/prover_bench: tests/bench/prover_bench.c $(B)/.flags
	@mkdir -p $(dir $@)
	$(call msg,CC,$@)$(CC) -std=gnu11 -O2 -g -Wall -o $@ $< -lpthread

$(B)/bench/live_bench: tests/bench/live_bench.c $(B)/.flags
	@mkdir -p $(dir $@)
	$(call msg,CC,$@)$(CC) -std=gnu11 -O2 -g -Wall -o $@ $< -lpthread

$(B)/bench/manysites: tests/bench/manysites.c $(B)/.flags
	@mkdir -p $(dir $@)
	$(call msg,CC,$@)$(CC) -std=gnu11 -O2 -g -Wall -o $@ $< -lpthread

$(B)/bench/threads_bench: tests/bench/threads_bench.c $(B)/.flags
	@mkdir -p $(dir $@)
	$(call msg,CC,$@)$(CC) -std=gnu11 -O2 -g -Wall -o $@ $< -lpthread

# the reader's floor: its decoder alone, and zstd alone, over the exact trace
$(B)/bench/decode_floor $(B)/bench/replay_floor: $(B)/bench/%: tests/bench/%.c $(B)/reader/decode.o $(B)/reader/util.o $(B)/.flags
	@mkdir -p $(dir $@)
	$(call msg,CC,$@)$(CC) $(RD_CFLAGS) -o $@ $< $(B)/reader/decode.o $(B)/reader/util.o $(RD_LIBS)

# the reader's symbolization: 20,000 call sites in one compile unit, with DWARF (mf_dwarf) and
# with a symbol table only (mf_symtab); -O0: the benchmark is the reader, not the compiler
MF_N := 20000
$(B)/bench/manyfuncs_lib.c $(B)/bench/manyfuncs.c: tests/bench/manyfuncs.sh
	@mkdir -p $(B)/bench
	$(call msg,GEN,$@)sh tests/bench/manyfuncs.sh $(MF_N) $(B)/bench

$(B)/bench/libmf_dwarf.so: $(B)/bench/manyfuncs_lib.c
	$(call msg,CC,$@)$(CC) -O0 -g -fPIC -shared -o $@ $<

$(B)/bench/libmf_symtab.so: $(B)/bench/manyfuncs_lib.c
	$(call msg,CC,$@)$(CC) -O0 -fPIC -shared -o $@ $<

$(B)/bench/mf_%: $(B)/bench/manyfuncs.c $(B)/bench/libmf_%.so
	$(call msg,CC,$@)$(CC) -O1 -g -o $@ $< -L$(B)/bench -lmf_$* -Wl,-rpath,'$$ORIGIN'

bench: deps
	$(Q)$(MAKE) --no-print-directory all $(B)/bench/prover_bench $(B)/bench/live_bench $(B)/bench/manysites $(B)/bench/threads_bench \
		$(B)/bench/decode_floor $(B)/bench/replay_floor $(B)/bench/mf_dwarf $(B)/bench/mf_symtab $(B)/progs/phasenames
	$(Q)bash tests/bench/run.sh

# the tracer's cost at 1, 4 and 16 threads, for a machine with many cores (tests/bench/scale.sh)
scale: deps
	$(Q)$(MAKE) --no-print-directory all $(B)/bench/prover_bench $(B)/bench/decode_floor
	$(Q)bash tests/bench/scale.sh

DEB_PKGS := libzstd-dev zstd libunwind-dev libcmocka-dev libdw-dev libelf-dev libiberty-dev zlib1g-dev pkg-config gcc g++ make python3 binutils libcap2-bin valgrind libtcmalloc-minimal4 libmimalloc-dev
deps:
	$(Q)missing=""; for p in $(DEB_PKGS); do \
		dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -z "$$missing" ]; then exit 0; fi; \
	if [ "$$(id -u)" = 0 ]; then \
		echo "installing:$$missing"; \
		export DEBIAN_FRONTEND=noninteractive; \
		apt-get update -q && apt-get install -y -q --no-install-recommends $$missing; \
	else \
		echo "missing Debian packages; run: sudo apt-get install$$missing"; exit 1; \
	fi

install: all
	install -d $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/include
	install -m 0755 $(LIB) $(DESTDIR)$(PREFIX)/lib/
	install -m 0755 $(REPORT) $(DESTDIR)$(PREFIX)/bin/
	install -m 0644 include/cuzktrace.h include/cuzktrace_shim.h $(DESTDIR)$(PREFIX)/include/
	install -d $(DESTDIR)$(PREFIX)/share/cuzktrace
	install -m 0644 preload/valgrind.supp $(DESTDIR)$(PREFIX)/share/cuzktrace/

clean:
	rm -rf $(B)

-include $(shell find $(B) -name '*.d' 2>/dev/null)

-include tests/cuda/cuda.mk
-include tests/sites/sites.mk
