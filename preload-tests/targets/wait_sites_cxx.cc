// SPDX-License-Identifier: MIT
/*
 * A wait made through the C++ standard library: a worker waits on a std::condition_variable
 * (inside libstdc++, which calls pthread_cond_wait) until the main thread says it may go, ROUNDS
 * times (argv[1], default 20). The main thread lets the worker reach its wait first (a
 * millisecond each round): told before it got there, the worker would not wait at all. Prints
 * "rounds N".
 */
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <thread>

static std::mutex lock;
static std::condition_variable said;
static long go, done;

__attribute__((noinline)) static void await_go(long round)
{
	std::unique_lock<std::mutex> held(lock);
	said.wait(held, [round] { return go > round; }); /* the worker waits to be told */
	done = round + 1;
	said.notify_all();
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? std::atol(argv[1]) : 20;
	std::thread worker([rounds] {
		for (long i = 0; i < rounds; i++)
			await_go(i);
	});
	for (long i = 0; i < rounds; i++) {
		std::this_thread::sleep_for(std::chrono::milliseconds(1));
		std::unique_lock<std::mutex> held(lock);
		go = i + 1;
		said.notify_all();
		said.wait(held, [i] { return done > i; });
	}
	worker.join();
	std::printf("rounds %ld\n", rounds);
	return 0;
}
