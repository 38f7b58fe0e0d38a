// SPDX-License-Identifier: MIT
/*
 * Threads no symbol names: the stripped library bare_pool's (bare_pool.c), and, on x86-64, one
 * started at code outside every module (as a JIT makes it: a jump to jit_thread, written into an
 * anonymous mapping). None sets a name of its own. The JIT thread waits ROUNDS times on a
 * semaphore the main thread posts while the library's run.
 */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "bare_pool.h"

#define ROUNDS 3

static sem_t jit_sem;

static void *jit_thread(void *arg)
{
	for (int r = 0; r < ROUNDS; r++)
		while (sem_wait(&jit_sem) != 0)
			;
	return arg;
}

typedef void *(*routine_fn)(void *);

/* `fn` behind a jump in an anonymous executable mapping (x86-64), else `fn` itself. */
static routine_fn outside_every_module(routine_fn fn)
{
#if defined(__x86_64__)
	unsigned char *code = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
				   -1, 0);
	if (code == MAP_FAILED)
		return fn;
	code[0] = 0x48, code[1] = 0xb8; /* movabs $fn, %rax */
	memcpy(code + 2, &fn, sizeof fn);
	code[10] = 0xff, code[11] = 0xe0; /* jmp *%rax */
	if (mprotect(code, 4096, PROT_READ | PROT_EXEC) != 0)
		return fn;
	routine_fn jumper;
	memcpy(&jumper, &code, sizeof jumper);
	return jumper;
#else
	return fn;
#endif
}

int main(void)
{
	pthread_t jit;
	sem_init(&jit_sem, 0, 0);
	if (pthread_create(&jit, NULL, outside_every_module(jit_thread), NULL) != 0)
		return 1;
	int pool = bare_pool_run(ROUNDS);
	for (int r = 0; r < ROUNDS; r++)
		sem_post(&jit_sem);
	pthread_join(jit, NULL);
	printf("%d pool threads, 1 other, %d rounds\n", pool, ROUNDS);
	return 0;
}
