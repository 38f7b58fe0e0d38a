// SPDX-License-Identifier: MIT
/* epoll and poll waits with and without timeouts, on descriptors this program opens. */
#define _GNU_SOURCE
#include <poll.h>
#include <stdio.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

int main(void)
{
	int ep = epoll_create1(0), p[2];
	if (ep < 0 || pipe(p) != 0)
		return 1;
	struct epoll_event ev = {.events = EPOLLIN, .data.fd = p[0]}, out[4];
	epoll_ctl(ep, EPOLL_CTL_ADD, p[0], &ev);
	printf("epoll fd %d\n", ep);

	printf("epoll_wait 30 ms: %d\n", epoll_wait(ep, out, 4, 30));
	printf("epoll_pwait 10 ms: %d\n", epoll_pwait(ep, out, 4, 10, NULL));
	struct timespec ten_ms = {0, 10 * 1000000};
	printf("epoll_pwait2 10 ms: %d\n", epoll_pwait2(ep, out, 4, &ten_ms, NULL));

	struct pollfd fds[1] = {{.fd = p[0], .events = POLLIN}};
	printf("ppoll 10 ms: %d\n", ppoll(fds, 1, &ten_ms, NULL));
	if (write(p[1], "x", 1) != 1)
		return 1;
	printf("epoll_wait ready: %d\n", epoll_wait(ep, out, 4, -1));
	printf("poll ready: %d\n", poll(fds, 1, -1));
	volatile nfds_t too_many = (nfds_t)-1;
	printf("poll bad fd count: %d\n", poll(NULL, too_many, 0));
	return 0;
}
