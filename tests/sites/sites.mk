# tests/sites/sites.mk: programs with known call paths for the call-site report, built the way
# they ship: optimized, no frame pointers, with debug info. Included by the main Makefile.
# The Rust program is built only when rustc is on PATH (t_sites.sh says when it is skipped).
SITES_T := $(B)/sites
SITES_CFLAGS := -O2 -g -fomit-frame-pointer -Wall
SITES_RUSTC := $(shell command -v rustc 2>/dev/null)
# clang++ writes no .debug_aranges, through which libdwfl finds a compile unit: built when
# installed (t_sites.sh says when it is skipped)
SITES_CLANGXX := $(shell command -v clang++ 2>/dev/null)
# rustc reads make's jobserver from MAKEFLAGS, whose descriptors a recipe without '+' does not
# get: under make -j it printed a warning per program ("failed to connect to jobserver")
SITES_RUSTC_RUN := env -u MAKEFLAGS -u MFLAGS -u CARGO_MAKEFLAGS $(SITES_RUSTC)
SITES_PROGS := $(SITES_T)/sites_c $(SITES_T)/libsites_lib.so $(SITES_T)/sites_cxx $(SITES_T)/sites_gap \
	$(SITES_T)/sites_names $(SITES_T)/sites_names_v2 $(SITES_T)/sites_paths \
	$(SITES_T)/sites_dl $(SITES_T)/libsites_dla.so $(SITES_T)/libsites_dlb.so \
	$(SITES_T)/sites_sig $(SITES_T)/sites_ns $(SITES_T)/sites_big
ifneq ($(SITES_CLANGXX),)
SITES_PROGS += $(SITES_T)/sites_cxx_clang
endif
ifneq ($(SITES_RUSTC),)
SITES_PROGS += $(SITES_T)/sites_rs $(SITES_T)/sites_rs_lt $(SITES_T)/sites_rsalloc \
	$(SITES_T)/sites_rsalloc_lt $(SITES_T)/sites_rsalloc_ltv0 $(SITES_T)/sites_rsinl \
	$(SITES_T)/sites_rsinl_v2 $(SITES_T)/sites_rsinl_v2v0 $(SITES_T)/sites_rsclo_lt $(SITES_T)/sites_rsclo_ltv0 \
	$(SITES_T)/sites_rsclo_g $(SITES_T)/sites_rsclo_lto $(SITES_T)/sites_rsnomain \
	$(SITES_T)/split/sites_rs_split $(SITES_T)/splitgone/sites_rs_splitgone \
	$(SITES_T)/sites_rs_strip $(SITES_T)/sites_rs_nodebug
endif

$(SITES_T)/libsites_dl%.so: tests/sites/sites_dl%.c
	@mkdir -p $(dir $@)
	$(call msg,CC,$@)$(CC) -std=gnu11 $(SITES_CFLAGS) -fPIC -shared -o $@ $<

$(SITES_T)/sites_dl: tests/sites/sites_dl.c
	@mkdir -p $(dir $@)
	$(call msg,CC,$@)$(CC) -std=gnu11 -D_GNU_SOURCE $(SITES_CFLAGS) -o $@ $< -ldl

$(SITES_T)/libsites_lib.so: tests/sites/sites_lib.c
	@mkdir -p $(dir $@)
	$(call msg,CC,$@)$(CC) -std=gnu11 $(SITES_CFLAGS) -fPIC -shared -o $@ $<

# RUNPATH=$ORIGIN: dlopen("libsites_lib.so") finds the library next to the program
$(SITES_T)/sites_c: tests/sites/sites_c.c
	@mkdir -p $(dir $@)
	$(call msg,CC,$@)$(CC) -std=gnu11 -D_GNU_SOURCE $(SITES_CFLAGS) -o $@ $< \
		-Wl,--enable-new-dtags,-rpath,'$$ORIGIN' -ldl

$(SITES_T)/sites_cxx: tests/sites/sites_cxx.cc
	@mkdir -p $(dir $@)
	$(call msg,CXX,$@)$(CXX) -std=c++17 $(SITES_CFLAGS) -o $@ $<

$(SITES_T)/sites_paths: tests/sites/sites_paths.c
	@mkdir -p $(dir $@)
	$(call msg,CC,$@)$(CC) -std=gnu11 $(SITES_CFLAGS) -o $@ $<

# main calling 1,000 functions, generated (tests/sites/gen_big.sh)
$(SITES_T)/sites_big.c: tests/sites/gen_big.sh
	@mkdir -p $(dir $@)
	bash $< 1000 >$@

$(SITES_T)/sites_big: $(SITES_T)/sites_big.c
	$(call msg,CC,$@)$(CC) -std=gnu11 $(SITES_CFLAGS) -Wno-unused-function -o $@ $<

$(SITES_T)/sites_sig: tests/sites/sites_sig.c
	@mkdir -p $(dir $@)
	$(call msg,CC,$@)$(CC) -std=gnu11 $(SITES_CFLAGS) -o $@ $<

$(SITES_T)/sites_ns: tests/sites/sites_ns.cc
	@mkdir -p $(dir $@)
	$(call msg,CXX,$@)$(CXX) -std=c++17 $(SITES_CFLAGS) -o $@ $<

$(SITES_T)/sites_cxx_clang: tests/sites/sites_cxx.cc
	@mkdir -p $(dir $@)
	$(call msg,CXX,$@)$(SITES_CLANGXX) -std=c++17 $(SITES_CFLAGS) -o $@ $<

$(SITES_T)/sites_names: tests/sites/sites_names.cc
	@mkdir -p $(dir $@)
	$(call msg,CXX,$@)$(CXX) -std=c++17 $(SITES_CFLAGS) -o $@ $<

$(SITES_T)/sites_names_v2: tests/sites/sites_names.cc
	@mkdir -p $(dir $@)
	$(call msg,CXX,$@)$(CXX) -std=c++17 -DV2 $(SITES_CFLAGS) -o $@ $<

$(SITES_T)/sites_gap: tests/sites/sites_gap.cc
	@mkdir -p $(dir $@)
	$(call msg,CXX,$@)$(CXX) -std=c++17 -O2 -g -o $@ $<

$(SITES_T)/sites_rs: tests/sites/sites_rs.rs
	@mkdir -p $(dir $@)
	$(call msg,RUSTC,$@)$(SITES_RUSTC_RUN) -O -g -o $@ $<

# Cargo's debug = "line-tables-only", and v0 symbol names
$(SITES_T)/sites_rs_lt: tests/sites/sites_rs.rs
	@mkdir -p $(dir $@)
	$(call msg,RUSTC,$@)$(SITES_RUSTC_RUN) -O -C debuginfo=line-tables-only \
		-C symbol-mangling-version=v0 -o $@ $<

# a #[global_allocator] and generic functions, with -g and line-tables-only (both manglings)
$(SITES_T)/sites_rsalloc: tests/sites/sites_rsalloc.rs
	@mkdir -p $(dir $@)
	$(call msg,RUSTC,$@)$(SITES_RUSTC_RUN) -O -g -o $@ $<

$(SITES_T)/sites_rsalloc_lt: tests/sites/sites_rsalloc.rs
	@mkdir -p $(dir $@)
	$(call msg,RUSTC,$@)$(SITES_RUSTC_RUN) -O -C debuginfo=line-tables-only -o $@ $<

$(SITES_T)/sites_rsalloc_ltv0: tests/sites/sites_rsalloc.rs
	@mkdir -p $(dir $@)
	$(call msg,RUSTC,$@)$(SITES_RUSTC_RUN) -O -C debuginfo=line-tables-only \
		-C symbol-mangling-version=v0 -o $@ $<

# one function inlined in one build and not in the other (line-tables-only both)
$(SITES_T)/sites_rsinl: tests/sites/sites_rsinl.rs
	@mkdir -p $(dir $@)
	$(call msg,RUSTC,$@)$(SITES_RUSTC_RUN) -O -C debuginfo=line-tables-only -o $@ $<

$(SITES_T)/sites_rsinl_v2: tests/sites/sites_rsinl.rs
	@mkdir -p $(dir $@)
	$(call msg,RUSTC,$@)$(SITES_RUSTC_RUN) -O -C debuginfo=line-tables-only --cfg v2 -o $@ $<

$(SITES_T)/sites_rsinl_v2v0: tests/sites/sites_rsinl.rs
	@mkdir -p $(dir $@)
	$(call msg,RUSTC,$@)$(SITES_RUSTC_RUN) -O -C debuginfo=line-tables-only --cfg v2 \
		-C symbol-mangling-version=v0 -o $@ $<

# closures and async bodies, line-tables-only with legacy and with v0 symbol names, and -g (2021
# edition: async blocks)
$(SITES_T)/sites_rsclo_lt: tests/sites/sites_rsclo.rs
	@mkdir -p $(dir $@)
	$(call msg,RUSTC,$@)$(SITES_RUSTC_RUN) --edition 2021 -O -C debuginfo=line-tables-only -o $@ $<

$(SITES_T)/sites_rsclo_ltv0: tests/sites/sites_rsclo.rs
	@mkdir -p $(dir $@)
	$(call msg,RUSTC,$@)$(SITES_RUSTC_RUN) --edition 2021 -O -C debuginfo=line-tables-only \
		-C symbol-mangling-version=v0 -o $@ $<

$(SITES_T)/sites_rsclo_g: tests/sites/sites_rsclo.rs
	@mkdir -p $(dir $@)
	$(call msg,RUSTC,$@)$(SITES_RUSTC_RUN) --edition 2021 -O -g -o $@ $<

# a release profile's fat LTO: std's runtime set-up inlined into the C main rustc generates
$(SITES_T)/sites_rsclo_lto: tests/sites/sites_rsclo.rs
	@mkdir -p $(dir $@)
	$(call msg,RUSTC,$@)$(SITES_RUSTC_RUN) --edition 2021 -O -C debuginfo=line-tables-only \
		-C lto=fat -C codegen-units=1 -o $@ $<

# a #![no_main] program's own main, line-tables-only: named "main" as rustc's generated one
$(SITES_T)/sites_rsnomain: tests/sites/sites_rsnomain.rs
	@mkdir -p $(dir $@)
	$(call msg,RUSTC,$@)$(SITES_RUSTC_RUN) -O -C debuginfo=line-tables-only -o $@ $<

# split debug info (Cargo's split-debuginfo = "unpacked"): the functions are in .dwo files beside
# the program, which its skeleton units name; and the same with those files gone
$(SITES_T)/split/sites_rs_split: tests/sites/sites_rs.rs
	@mkdir -p $(dir $@)
	$(call msg,RUSTC,$@)$(SITES_RUSTC_RUN) -O -g -C split-debuginfo=unpacked -o $@ $<

$(SITES_T)/splitgone/sites_rs_splitgone: tests/sites/sites_rs.rs
	@mkdir -p $(dir $@)
	$(call msg,RUSTC,$@)$(SITES_RUSTC_RUN) -O -g -C split-debuginfo=unpacked -o $@ $< && \
		rm -f $(dir $@)*.dwo

# stripped (Cargo's strip = "symbols"), and stripped of its debug information alone (strip =
# "debuginfo", Cargo's release default where debug is off)
$(SITES_T)/sites_rs_strip: tests/sites/sites_rs.rs
	@mkdir -p $(dir $@)
	$(call msg,RUSTC,$@)$(SITES_RUSTC_RUN) -O -g -C strip=symbols -o $@ $<

$(SITES_T)/sites_rs_nodebug: tests/sites/sites_rs.rs
	@mkdir -p $(dir $@)
	$(call msg,RUSTC,$@)$(SITES_RUSTC_RUN) -O -C strip=debuginfo -o $@ $<

.PHONY: sites-tests
sites-tests: $(SITES_PROGS)
integration: $(SITES_PROGS)
