# tests/cuda/cuda.mk: the stub driver and the CUDA test programs, built into $(B)/cuda/.
# Included by the main Makefile; no CUDA toolkit is needed (tests/cuda/cu_min.h declares the
# little of the driver ABI they use).
CUDA_T := $(B)/cuda
CUDA_STUB := $(CUDA_T)/libcuda.so.1
CUDA_PROGS := $(CUDA_T)/cu_linked $(CUDA_T)/cu_dlopen $(CUDA_T)/cu_static $(CUDA_T)/cu_pools $(CUDA_T)/cu_quota \
	$(CUDA_T)/cu_quota_ctor $(CUDA_T)/cu_plugin $(CUDA_T)/cu_samename
CUDA_CFLAGS := -std=gnu11 -D_GNU_SOURCE -O2 -g -Wall -Wextra -Itests/cuda -Iinclude

$(CUDA_STUB): tests/cuda/stub_libcuda.c tests/cuda/cu_min.h
	@mkdir -p $(dir $@)
	$(call msg,CC,$@)$(CC) $(CUDA_CFLAGS) -fPIC -shared -Wl,-soname,libcuda.so.1 -o $@ $< -lpthread
	$(Q)ln -sf libcuda.so.1 $(CUDA_T)/libcuda.so

# the same driver without cuCtxGetDevice (nodev) or cuMemAllocPitch_v2 (nopitch), for
# LD_LIBRARY_PATH (which RUNPATH does not override)
CUDA_STUB_VARIANTS := $(CUDA_T)/nodev/libcuda.so.1 $(CUDA_T)/nopitch/libcuda.so.1
$(CUDA_T)/nodev/libcuda.so.1: STUB_DEF := -DCKT_STUB_NO_CTX_GET_DEVICE
$(CUDA_T)/nopitch/libcuda.so.1: STUB_DEF := -DCKT_STUB_NO_PITCH
$(CUDA_STUB_VARIANTS): tests/cuda/stub_libcuda.c tests/cuda/cu_min.h
	@mkdir -p $(dir $@)
	$(call msg,CC,$@)$(CC) $(CUDA_CFLAGS) $(STUB_DEF) -fPIC -shared -Wl,-soname,libcuda.so.1 -o $@ $< -lpthread

# RUNPATH=$ORIGIN: both -lcuda and dlopen("libcuda.so.1") find the stub next to the program
$(CUDA_T)/cu_linked: tests/cuda/cu_linked.c tests/cuda/exercise.h include/cuzktrace_shim.h $(CUDA_STUB)
	$(call msg,CC,$@)$(CC) $(CUDA_CFLAGS) -o $@ $< -L$(CUDA_T) -lcuda -Wl,--enable-new-dtags,-rpath,'$$ORIGIN' -ldl

# cu_linked.c as a library opened RTLD_LOCAL by cu_plugin (its main is plugin_main)
$(CUDA_T)/libculinked.so: tests/cuda/cu_linked.c tests/cuda/exercise.h include/cuzktrace_shim.h $(CUDA_STUB)
	$(call msg,CC,$@)$(CC) $(CUDA_CFLAGS) -fPIC -shared -Dmain=plugin_main -o $@ $< -L$(CUDA_T) -lcuda -Wl,--enable-new-dtags,-rpath,'$$ORIGIN' -ldl
$(CUDA_T)/cu_plugin: $(CUDA_T)/libculinked.so

# a quota layer of the program's own, linked before -lcuda: resolving the driver at its first
# call (cu_quota) or in its constructor (cu_quota_ctor)
$(CUDA_T)/libquota.so $(CUDA_T)/libquota_ctor.so: $(CUDA_T)/libquota%.so: tests/cuda/lib/quota.c tests/cuda/cu_min.h
	$(call msg,CC,$@)$(CC) $(CUDA_CFLAGS) $(if $*,-DQUOTA_CTOR) -fPIC -shared -o $@ $< -ldl
$(CUDA_T)/cu_quota $(CUDA_T)/cu_quota_ctor: $(CUDA_T)/cu_quota%: tests/cuda/cu_quota.c $(CUDA_T)/libquota%.so $(CUDA_STUB)
	$(call msg,CC,$@)$(CC) $(CUDA_CFLAGS) -o $@ $< -L$(CUDA_T) -lquota$* -lcuda -Wl,--enable-new-dtags,-rpath,'$$ORIGIN' -ldl

# two static functions of one name in two files, linked with the stub (--diff tells them apart)
$(CUDA_T)/cu_samename: tests/cuda/cu_samename.c tests/cuda/lib/samename_dev.c tests/cuda/cu_min.h $(CUDA_STUB)
	$(call msg,CC,$@)$(CC) $(CUDA_CFLAGS) -o $@ tests/cuda/cu_samename.c tests/cuda/lib/samename_dev.c \
		-L$(CUDA_T) -lcuda -Wl,--enable-new-dtags,-rpath,'$$ORIGIN'

$(CUDA_T)/cu_%: tests/cuda/cu_%.c tests/cuda/exercise.h $(CUDA_STUB)
	$(call msg,CC,$@)$(CC) $(CUDA_CFLAGS) -o $@ $< -Wl,--enable-new-dtags,-rpath,'$$ORIGIN' -ldl

.PHONY: cuda-tests
cuda-tests: $(CUDA_STUB) $(CUDA_STUB_VARIANTS) $(CUDA_PROGS)
integration: $(CUDA_STUB) $(CUDA_STUB_VARIANTS) $(CUDA_PROGS)
