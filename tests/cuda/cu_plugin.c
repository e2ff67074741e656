/* cu_plugin.c: path (1) from a library opened RTLD_LOCAL, the shape of a Python extension linked
 * with -lcuda: libculinked.so (cu_linked.c built as a library, linked with -lcuda) is opened
 * RTLD_LOCAL and its main run. The driver is then out of reach of RTLD_NEXT, and the program
 * never asks dlsym for a driver function: the tracer finds each one in the loaded object named
 * libcuda.so.1, without the loader (LD_DEBUG=files shows no opening of it). */
#include <dlfcn.h>
#include <stdio.h>

int main(void)
{
	void *h = dlopen("libculinked.so", RTLD_NOW | RTLD_LOCAL);
	int (*run)(int, char **) = h ? (int (*)(int, char **))dlsym(h, "plugin_main") : NULL;
	if (!run) {
		fprintf(stderr, "cu_plugin: %s\n", dlerror());
		return 2;
	}
	char *argv[] = {"cu_linked", NULL};
	return run(1, argv);
}
