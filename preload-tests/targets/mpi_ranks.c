// SPDX-License-Identifier: MIT
/*
 * An MPI program of known shapes, chosen by its argument (a second one, from 1 to 100, makes a
 * unit of work that many times as long; under POP_TIMES each rank that worked says on stderr how
 * long: "SHAPE: rank R worked W ms"); only rank 0 prints (a result every rank contributed to),
 * so its output is the same on every run:
 *   imbalance  rank r works 1 + 2r units, then all reduce their results
 *   pipeline   rounds of a token passed from rank 0 through each rank to the last
 *   bcast      rank 0 works, then broadcasts its result to every rank
 *   halo       rounds of nonblocking exchanges with both neighbours on a ring, completed by
 *              MPI_Waitall
 *   pcontrol   imbalance before and after a region of interest (MPI_Pcontrol(1) to (0))
 *              where every rank works 2 units, then all reduce
 *   mprobe     in a region of interest, a token down the ranks received by matched probes
 *              (MPI_Mprobe, then MPI_Mrecv), each rank sleeping 40 ms with it in turn (a
 *              sleep: the same on a loaded machine), then a barrier; after it, the last
 *              rank's token back to rank 0, found by MPI_Improbe and read by MPI_Imrecv
 *   rooted     in a region of interest, rooted collectives whose waits go one way: the other
 *              ranks sleep 40 ms and take rank 0's broadcast, which rank 0 made at once; rank
 *              0 sleeps 80 ms and takes the reduction the others made at once, then they sleep
 *              40 ms. Every rank sleeps 80 ms, nobody waits for a rank that waits for it:
 *              balanced, serialisation 1. Under POP_TIMES each rank says on stderr how long
 *              its sleeps and its region of interest took ("rooted: rank R slept S ms of W
 *              ms"): a loaded machine wakes a sleeper late
 *   poll       rank 0 works 3 units, then sends rank 1 a token; rank 1 starts its receive,
 *              works 1 unit, then polls the receive with MPI_Test until it completes, as a
 *              program overlapping its communication does: rank 1's polling is MPI's time
 *   others     rank r works 1 + 2r units before each of MPI_Comm_split, MPI_Alltoallw,
 *              MPI_Cart_create, MPI_Comm_split_type and the second of two MPI_Win_fence
 *              calls, where every rank waits for the last one
 *   pairs      in a region of interest, two rounds on communicators of two ranks each (0 and
 *              1, 2 and 3, ...): the first pair's ranks sleep 60 ms, meet in a barrier, sleep
 *              20 ms, meet again; the second pair's sleep 20 ms, then 60 ms; the first pair
 *              then reduces once more. Each pair waits for nobody but itself: balanced,
 *              serialisation 1 (paired as one communicator, every rank would wait 60 ms in
 *              each half-round, 240 ms where 160 ms are spent)
 *   overlap    in a region of interest, a nonblocking broadcast: rank 0 sleeps 40 ms, then
 *              starts it (MPI_Ibcast) and completes it (MPI_Wait); the others start it at once,
 *              sleep 10 ms, wait for it, then sleep 40 ms: their sleep after it needs rank
 *              0's, serialisation 50 / 80
 *   crossed    in a region of interest, two messages of one tag from rank 0 to rank 1, A on a
 *              duplicate of MPI_COMM_WORLD (MPI_Isend at once), then after 100 ms B on
 *              MPI_COMM_WORLD (MPI_Send); rank 1 receives B, sleeps 200 ms, then receives A
 *              (MPI orders messages within a communicator only); the other ranks sleep 250 ms.
 *              Rank 1's sleep needs B: serialisation 250 / 300 (paired by tag alone, A's send
 *              at 0 would let it start at once: serialisation 1)
 *   crossed-idup   the same, the duplicate made by MPI_Comm_idup (completed by MPI_Wait)
 *   crossed-idup-info  by MPI_Comm_idup_with_info (MPI 4: MPICH; else MPI_Comm_idup)
 *   crossed-inter  the same on two intercommunicators between the even and the odd ranks
 *              (MPI_Intercomm_create, tags 7 and 8), rank 0 to rank 1 (the odd half's first)
 *   crossed-groups  (MPI 4: MPICH) on two communicators of every rank made by
 *              MPI_Comm_create_from_group with two string tags; before them ranks 0 and 1,
 *              then 0 and 2, make one with one string tag, and rank 0 sends rank 2 a message
 *              on theirs
 *   crossed-inter-groups  (MPI 4) on two intercommunicators made by
 *              MPI_Intercomm_create_from_groups with two string tags
 *   intercomm  the ranks in two halves (even and odd) joined by an intercommunicator
 *              (MPI_Intercomm_create) and its duplicate: each even rank sends its odd partner
 *              three messages of one tag on each, which it receives on the duplicate first;
 *              then in each half its first rank sends its second one message, and one more
 *              on a communicator of the half's ranks (MPI_Comm_create_group); then each even
 *              rank its partner one on the halves merged (MPI_Intercomm_merge)
 *   many       rank 1 sends rank 0 1570 messages of tags 0 to 1569, received by 1500 requests
 *              completed by one MPI_Waitall, then 70 completed by MPI_Waitany: the sum
 *   freed      rank 1 sends rank 0 a message of tag 9, which rank 0 receives after 100 ms by a
 *              request it frees at once (MPI_Request_free); rank 0 then sends rank 1 one of
 *              tag 5 by MPI_Send_init, MPI_Start, MPI_Wait (a request the implementations make
 *              of the freed one's handle)
 *   cancel     rank 1 starts two receives (one from any rank with any tag, one from rank 0
 *              with tag 3), cancels both and completes them (MPI_Waitall), then receives rank
 *              0's one message of tag 3 (MPI_Irecv, MPI_Wait), which rank 0 sends after 50 ms:
 *              the receives cancelled and the value
 *   persistent the pipeline by persistent requests (MPI_Recv_init, MPI_Send_init, each round
 *              started by MPI_Start or MPI_Startall and completed by MPI_Wait, then freed)
 *   erroneous  with MPI_ERRORS_RETURN, calls given no request array (MPI_Start, MPI_Startall,
 *              MPI_Request_free, MPI_Waitall): how many the implementation refused; then with
 *              an error handler of the program's, which counts its calls, calls on
 *              MPI_COMM_NULL (MPI_Barrier, MPI_Bcast, MPI_Send), a send of MPI_DATATYPE_NULL,
 *              and one to a rank beyond its communicator's: 10 times the calls it counted
 *              added
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define ROUNDS 5

/* One unit of work: a few milliseconds of arithmetic whose result depends on every step. */
/* A unit's iterations: 2,000,000 (some 8 ms here), times the second argument when given. */
static long unit = 2000000L;
/* the wall time spent in work(), which POP_TIMES says at the end (a loaded machine's share) */
static double worked_ms;

static double work(int units)
{
	struct timespec from, to;
	clock_gettime(CLOCK_MONOTONIC, &from);
	volatile double x = 1.0;
	for (long i = 0; i < units * unit; i++)
		x = x * 1.0000001 + 1e-9;
	clock_gettime(CLOCK_MONOTONIC, &to);
	worked_ms += (double)(to.tv_sec - from.tv_sec) * 1e3 +
		     (double)(to.tv_nsec - from.tv_nsec) / 1e6;
	return x > 0 ? units : -1;
}

static int imbalance(int rank)
{
	double mine = work(1 + 2 * rank), sum = 0;
	MPI_Allreduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
	return (int)sum;
}

static int pipeline(int rank, int size)
{
	int token = 0;
	for (int round = 0; round < ROUNDS; round++) {
		if (rank > 0)
			MPI_Recv(&token, 1, MPI_INT, rank - 1, 5, MPI_COMM_WORLD,
				 MPI_STATUS_IGNORE);
		token += rank;
		if (rank < size - 1)
			MPI_Send(&token, 1, MPI_INT, rank + 1, 5, MPI_COMM_WORLD);
	}
	/* the last rank's token, to rank 0 */
	if (size > 1 && rank == size - 1)
		MPI_Send(&token, 1, MPI_INT, 0, 6, MPI_COMM_WORLD);
	if (size > 1 && rank == 0)
		MPI_Recv(&token, 1, MPI_INT, size - 1, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	return token;
}

/* The pipeline's rounds by persistent requests; the last rank's token back as the pipeline's. */
static int persistent(int rank, int size)
{
	int token = 0, in = 0;
	MPI_Request receive = MPI_REQUEST_NULL, send = MPI_REQUEST_NULL;
	if (rank > 0)
		MPI_Recv_init(&in, 1, MPI_INT, rank - 1, 5, MPI_COMM_WORLD, &receive);
	if (rank < size - 1)
		MPI_Send_init(&token, 1, MPI_INT, rank + 1, 5, MPI_COMM_WORLD, &send);
	for (int round = 0; round < ROUNDS; round++) {
		if (rank > 0) {
			MPI_Start(&receive);
			MPI_Wait(&receive, MPI_STATUS_IGNORE);
			token = in;
		}
		token += rank;
		if (rank < size - 1) {
			MPI_Startall(1, &send);
			MPI_Wait(&send, MPI_STATUS_IGNORE);
		}
	}
	if (rank > 0)
		MPI_Request_free(&receive);
	if (rank < size - 1)
		MPI_Request_free(&send);
	if (size > 1 && rank == size - 1)
		MPI_Send(&token, 1, MPI_INT, 0, 6, MPI_COMM_WORLD);
	if (size > 1 && rank == 0)
		MPI_Recv(&token, 1, MPI_INT, size - 1, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	return token;
}

static int handler_calls;

static void count_error(MPI_Comm *comm, int *code, ...)
{
	(void)comm, (void)code;
	handler_calls++;
}

/* Calls given no request array, which the implementation refuses: how many it refused; then
 * 10 times the calls of the program's error handler that calls on MPI_COMM_NULL made. */
static int erroneous(void)
{
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
	int refused = (MPI_Start(NULL) != MPI_SUCCESS) + (MPI_Startall(1, NULL) != MPI_SUCCESS) +
		      (MPI_Request_free(NULL) != MPI_SUCCESS) +
		      (MPI_Waitall(1, NULL, MPI_STATUSES_IGNORE) != MPI_SUCCESS);
	MPI_Errhandler counting;
	MPI_Comm_create_errhandler(count_error, &counting);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, counting);
	MPI_Comm_set_errhandler(MPI_COMM_SELF, counting);
	int value = 0, rank;
	MPI_Barrier(MPI_COMM_NULL);
	MPI_Bcast(&value, 1, MPI_INT, 0, MPI_COMM_NULL);
	MPI_Send(&value, 1, MPI_INT, 0, 1, MPI_COMM_NULL);
	/* no type; a rank beyond a communicator of one rank (its handler: the program's too) */
	MPI_Comm one;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_split(MPI_COMM_WORLD, rank, 0, &one);
	MPI_Comm_set_errhandler(one, counting);
	MPI_Send(&value, 1, MPI_DATATYPE_NULL, rank, 1, MPI_COMM_WORLD);
	MPI_Send(&value, 1, MPI_INT, 1, 1, one);
	MPI_Comm_free(&one);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
	MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
	MPI_Errhandler_free(&counting);
	return refused + 10 * handler_calls;
}

static int bcast(int rank)
{
	int value = rank == 0 ? (int)work(4) * 10 : 0;
	MPI_Bcast(&value, 1, MPI_INT, 0, MPI_COMM_WORLD);
	int sum = 0;
	MPI_Reduce(&value, &sum, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
	return sum;
}

static int halo(int rank, int size)
{
	int left = (rank + size - 1) % size, right = (rank + 1) % size, sum = 0;
	for (int round = 0; round < ROUNDS; round++) {
		int from_left = 0, from_right = 0, mine = rank + round;
		MPI_Request requests[4];
		MPI_Irecv(&from_left, 1, MPI_INT, left, 7, MPI_COMM_WORLD, &requests[0]);
		MPI_Irecv(&from_right, 1, MPI_INT, right, 8, MPI_COMM_WORLD, &requests[1]);
		MPI_Isend(&mine, 1, MPI_INT, right, 7, MPI_COMM_WORLD, &requests[2]);
		MPI_Isend(&mine, 1, MPI_INT, left, 8, MPI_COMM_WORLD, &requests[3]);
		MPI_Waitall(4, requests, MPI_STATUSES_IGNORE);
		sum += from_left + from_right;
	}
	int total = 0;
	MPI_Reduce(&sum, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
	return total;
}

/* Rank 1 sends rank 0 1570 messages, which it receives by more requests than a wait's 64 at once,
 * and more pending at once than 1024: 1500 completed by one MPI_Waitall, then 70 by MPI_Waitany
 * (`many`). */
static int many(int rank)
{
	enum { ALL = 1500, ANY = 70 };
	int got[ALL + ANY] = {0}, sum = 0;
	MPI_Request requests[ALL];
	if (rank == 1) {
		for (int i = 0; i < ALL + ANY; i++)
			MPI_Send(&i, 1, MPI_INT, 0, i, MPI_COMM_WORLD);
	} else if (rank == 0) {
		for (int i = 0; i < ALL; i++)
			MPI_Irecv(&got[i], 1, MPI_INT, 1, i, MPI_COMM_WORLD, &requests[i]);
		MPI_Waitall(ALL, requests, MPI_STATUSES_IGNORE);
		for (int i = 0; i < ANY; i++)
			MPI_Irecv(&got[ALL + i], 1, MPI_INT, 1, ALL + i, MPI_COMM_WORLD,
				  &requests[i]);
		for (int i = 0, index; i < ANY; i++)
			MPI_Waitany(ANY, requests, &index, MPI_STATUS_IGNORE);
	}
	for (int i = 0; i < ALL + ANY; i++)
		sum += got[i];
	return sum;
}

/* A receive freed while it is active, then a persistent send, whose request the implementation
 * makes of the freed one's handle (`freed`): rank 1 sends rank 0 a message of tag 9, which rank 0
 * receives after 100 ms by a request it frees at once; rank 0 then sends rank 1 a message of tag 5
 * by MPI_Send_init, MPI_Start and MPI_Wait. What rank 1 received. */
static int freed(int rank)
{
	int got = 0, value = 5;
	if (rank == 0) {
		MPI_Request receive, send;
		usleep(100000);
		MPI_Irecv(&got, 1, MPI_INT, 1, 9, MPI_COMM_WORLD, &receive);
		MPI_Request_free(&receive);
		MPI_Send_init(&value, 1, MPI_INT, 1, 5, MPI_COMM_WORLD, &send);
		MPI_Start(&send);
		MPI_Wait(&send, MPI_STATUS_IGNORE);
		MPI_Request_free(&send);
	} else if (rank == 1) {
		MPI_Send(&value, 1, MPI_INT, 0, 9, MPI_COMM_WORLD);
		MPI_Recv(&got, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	return got;
}

static int pcontrol(int rank)
{
	double before = work(1 + 2 * rank), sum = 0;
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Pcontrol(1);
	double mine = work(2);
	MPI_Allreduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
	MPI_Pcontrol(0);
	double after = work(1 + 2 * rank), all = 0;
	mine = before + after;
	MPI_Allreduce(&mine, &all, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
	return (int)(sum + all);
}

static int mprobe(int rank, int size)
{
	int token = 0;
	MPI_Pcontrol(1);
	if (rank > 0) {
		MPI_Message message;
		MPI_Mprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &message,
			   MPI_STATUS_IGNORE);
		MPI_Mrecv(&token, 1, MPI_INT, &message, MPI_STATUS_IGNORE);
	}
	usleep(40000);
	token += rank;
	if (rank < size - 1)
		MPI_Send(&token, 1, MPI_INT, rank + 1, 9, MPI_COMM_WORLD);
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Pcontrol(0);
	if (size > 1 && rank == size - 1)
		MPI_Send(&token, 1, MPI_INT, 0, 10, MPI_COMM_WORLD);
	if (size > 1 && rank == 0) {
		MPI_Message message;
		MPI_Request request;
		int found = 0;
		while (!found)
			MPI_Improbe(size - 1, 10, MPI_COMM_WORLD, &found, &message,
				    MPI_STATUS_IGNORE);
		MPI_Imrecv(&token, 1, MPI_INT, &message, &request);
		MPI_Wait(&request, MPI_STATUS_IGNORE);
	}
	return token;
}

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Sleeps `us` microseconds; what it took added to `*slept_ms`. */
static void nap(useconds_t us, double *slept_ms)
{
	double from = now_ms();
	usleep(us);
	*slept_ms += now_ms() - from;
}

static int rooted(int rank)
{
	int value = rank == 0 ? 7 : 0, sum = 0;
	double slept = 0;
	MPI_Pcontrol(1);
	double from = now_ms();
	if (rank > 0)
		nap(40000, &slept);
	MPI_Bcast(&value, 1, MPI_INT, 0, MPI_COMM_WORLD);
	if (rank == 0)
		nap(80000, &slept);
	MPI_Reduce(&value, &sum, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
	if (rank > 0)
		nap(40000, &slept);
	double region = now_ms() - from;
	MPI_Pcontrol(0);
	if (getenv("POP_TIMES") != NULL)
		fprintf(stderr, "rooted: rank %d slept %.3f ms of %.3f ms\n", rank, slept, region);
	return sum;
}

/* Rank 0 works 3 units and sends; rank 1 works 1 unit, then polls its receive with MPI_Test. */
static int poll(int rank)
{
	int token = 0, done = 0;
	if (rank == 0) {
		token = (int)work(3);
		MPI_Send(&token, 1, MPI_INT, 1, 10, MPI_COMM_WORLD);
	} else if (rank == 1) {
		MPI_Request request;
		MPI_Irecv(&token, 1, MPI_INT, 0, 10, MPI_COMM_WORLD, &request);
		work(1);
		while (!done)
			MPI_Test(&request, &done, MPI_STATUS_IGNORE);
	}
	return token;
}

/* Rank r works 1 + 2r units before each call that waits for every rank (the `others` shape). */
static int others(int rank, int size)
{
	enum { MOST = 64 };
	int mine[MOST], theirs[MOST], counts[MOST], places[MOST], exposed = rank;
	MPI_Datatype types[MOST];
	for (int i = 0; i < MOST; i++) {
		mine[i] = rank;
		counts[i] = i < size ? 1 : 0;
		places[i] = i * (int)sizeof(int);
		types[i] = MPI_INT;
	}
	MPI_Comm half;
	work(1 + 2 * rank);
	MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
	work(1 + 2 * rank);
	MPI_Alltoallw(mine, counts, places, types, theirs, counts, places, types, MPI_COMM_WORLD);
	MPI_Comm line, node;
	int dims[1] = {size}, periods[1] = {0};
	work(1 + 2 * rank);
	MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &line);
	work(1 + 2 * rank);
	MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
	MPI_Comm_free(&node);
	MPI_Comm_free(&line);
	MPI_Win window;
	MPI_Win_create(&exposed, sizeof exposed, sizeof exposed, MPI_INFO_NULL, MPI_COMM_WORLD,
		       &window);
	MPI_Win_fence(0, window);
	work(1 + 2 * rank);
	MPI_Win_fence(0, window);
	MPI_Win_free(&window);
	MPI_Comm_free(&half);
	int sum = 0;
	for (int i = 0; i < size && i < MOST; i++)
		sum += theirs[i];
	return sum;
}

/* Two rounds on pairs of ranks, each pair's sleeps the other's in reverse (the `pairs` shape). */
static int pairs(int rank)
{
	MPI_Comm pair;
	int first = rank / 2 % 2 == 0, sum = 0, one = 1;
	MPI_Comm_split(MPI_COMM_WORLD, rank / 2, rank, &pair);
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Pcontrol(1);
	for (int round = 0; round < 2; round++) {
		usleep(first ? 60000 : 20000);
		MPI_Barrier(pair);
		usleep(first ? 20000 : 60000);
		MPI_Barrier(pair);
	}
	if (first)
		MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, pair);
	MPI_Pcontrol(0);
	MPI_Comm_free(&pair);
	return sum;
}

/* A nonblocking broadcast the other ranks need after 10 ms, which rank 0 starts after 40. */
static int overlap(int rank)
{
	int value = rank == 0 ? 7 : 0;
	MPI_Request request;
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Pcontrol(1);
	if (rank == 0)
		usleep(40000);
	MPI_Ibcast(&value, 1, MPI_INT, 0, MPI_COMM_WORLD, &request);
	if (rank > 0)
		usleep(10000);
	MPI_Wait(&request, MPI_STATUS_IGNORE);
	if (rank > 0)
		usleep(40000);
	MPI_Pcontrol(0);
	return value;
}

/*
 * Two messages of one tag on two communicators, received in the other order: A's on a duplicate of
 * MPI_COMM_WORLD, B's on the world (`crossed`); the duplicate made by MPI_Comm_idup (`idup`, or
 * MPI_Comm_idup_with_info: `idup-info`); or
 * on two intercommunicators between the even and the odd ranks (`inter`), from rank 0 to rank
 * 1, the odd half's first.
 */
static int crossed(int rank, const char *how)
{
	MPI_Comm first, second = MPI_COMM_WORLD, half = MPI_COMM_NULL;
	int a = 1, b = 2, got_a = 0, got_b = 0, to = 1, from = 0;
	MPI_Request request;
	if (strcmp(how, "idup") == 0) {
		MPI_Comm_idup(MPI_COMM_WORLD, &first, &request);
		MPI_Wait(&request, MPI_STATUS_IGNORE);
	} else if (strcmp(how, "idup-info") == 0) {
#if MPI_VERSION >= 4
		MPI_Comm_idup_with_info(MPI_COMM_WORLD, MPI_INFO_NULL, &first, &request);
#else
		MPI_Comm_idup(MPI_COMM_WORLD, &first, &request);
#endif
		MPI_Wait(&request, MPI_STATUS_IGNORE);
#if MPI_VERSION >= 4
	} else if (strcmp(how, "groups") == 0) {
		MPI_Group all;
		MPI_Comm_group(MPI_COMM_WORLD, &all);
		/* first ranks 0 and 1, then 0 and 2, make one with one string tag; then rank 0 sends
		 * rank 2 a message on theirs (rank 0 made two with the tag, rank 2 one) */
		for (int other = 1; other <= 2; other++) {
			int pair[2] = {0, other}, one = 1;
			MPI_Group two;
			MPI_Comm both;
			if (rank != 0 && rank != other)
				continue;
			MPI_Group_incl(all, 2, pair, &two);
			MPI_Comm_create_from_group(two, "taskprobe.pair", MPI_INFO_NULL,
						   MPI_ERRORS_ARE_FATAL, &both);
			if (other == 2 && rank == 0)
				MPI_Send(&one, 1, MPI_INT, 1, 3, both);
			else if (other == 2)
				MPI_Recv(&one, 1, MPI_INT, 0, 3, both, MPI_STATUS_IGNORE);
			MPI_Comm_free(&both);
			MPI_Group_free(&two);
		}
		MPI_Comm_create_from_group(all, "taskprobe.first", MPI_INFO_NULL,
					   MPI_ERRORS_ARE_FATAL, &first);
		MPI_Comm_create_from_group(all, "taskprobe.second", MPI_INFO_NULL,
					   MPI_ERRORS_ARE_FATAL, &second);
		MPI_Group_free(&all);
	} else if (strcmp(how, "inter-groups") == 0) {
		MPI_Group all, ours, theirs;
		int size, n = 0, mine[64], others[64];
		MPI_Comm_size(MPI_COMM_WORLD, &size);
		for (int r = 0; r < size && r < 128; r++)
			if (r % 2 == rank % 2)
				mine[n++] = r;
			else
				others[r / 2] = r;
		MPI_Comm_group(MPI_COMM_WORLD, &all);
		MPI_Group_incl(all, n, mine, &ours);
		MPI_Group_incl(all, size - n, others, &theirs);
		MPI_Intercomm_create_from_groups(ours, 0, theirs, 0, "taskprobe.first",
						 MPI_INFO_NULL, MPI_ERRORS_ARE_FATAL, &first);
		MPI_Intercomm_create_from_groups(ours, 0, theirs, 0, "taskprobe.second",
						 MPI_INFO_NULL, MPI_ERRORS_ARE_FATAL, &second);
		MPI_Group_free(&theirs);
		MPI_Group_free(&ours);
		MPI_Group_free(&all);
		to = 0; /* the other half's first rank */
#endif
	} else if (strcmp(how, "inter") == 0) {
		int color = rank % 2;
		MPI_Comm_split(MPI_COMM_WORLD, color, rank, &half);
		MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, 1 - color, 7, &first);
		MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, 1 - color, 8, &second);
		to = 0; /* the other half's first rank */
	} else {
		MPI_Comm_dup(MPI_COMM_WORLD, &first);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Pcontrol(1);
	if (rank == 0) {
		MPI_Isend(&a, 1, MPI_INT, to, 0, first, &request);
		usleep(100000);
		MPI_Send(&b, 1, MPI_INT, to, 0, second);
		MPI_Wait(&request, MPI_STATUS_IGNORE);
	} else if (rank == 1) {
		MPI_Recv(&got_b, 1, MPI_INT, from, 0, second, MPI_STATUS_IGNORE);
		usleep(200000);
		MPI_Recv(&got_a, 1, MPI_INT, from, 0, first, MPI_STATUS_IGNORE);
	} else {
		usleep(250000);
	}
	MPI_Pcontrol(0);
	MPI_Comm_free(&first);
	if (second != MPI_COMM_WORLD)
		MPI_Comm_free(&second);
	if (half != MPI_COMM_NULL)
		MPI_Comm_free(&half);
	int sum = 0, mine = got_a * 10 + got_b;
	MPI_Reduce(&mine, &sum, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
	return sum;
}

/* One message of tag 6 from `comm`'s first rank to its second: what the second received. */
static int first_to_second(MPI_Comm comm)
{
	int rank, size, value = 1;
	MPI_Comm_rank(comm, &rank);
	MPI_Comm_size(comm, &size);
	if (rank == 0 && size > 1)
		MPI_Send(&value, 1, MPI_INT, 1, 6, comm);
	else if (rank == 1)
		MPI_Recv(&value, 1, MPI_INT, 0, 6, comm, MPI_STATUS_IGNORE);
	return rank == 1 ? value : 0;
}

/* Messages of one tag on an intercommunicator and its duplicate (`intercomm`). */
static int intercomm(int rank)
{
	MPI_Comm half, inter, dup;
	int color = rank % 2, partner, sum = 0, got = 0;
	MPI_Comm_split(MPI_COMM_WORLD, color, rank, &half);
	MPI_Comm_rank(half, &partner); /* the same rank in the other half */
	MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, color == 0 ? 1 : 0, 7, &inter);
	MPI_Comm_dup(inter, &dup);
	for (int i = 1; i <= 3; i++) {
		if (color == 0) {
			MPI_Send(&i, 1, MPI_INT, partner, 5, inter);
			MPI_Send(&i, 1, MPI_INT, partner, 5, dup);
		} else {
			MPI_Recv(&got, 1, MPI_INT, partner, 5, dup, MPI_STATUS_IGNORE);
			sum += got;
			MPI_Recv(&got, 1, MPI_INT, partner, 5, inter, MPI_STATUS_IGNORE);
			sum += got;
		}
	}
	/* then within each half: its first rank to its second (world 0 to 2, 1 to 3), and the same
	 * on a communicator of the half's ranks made by them alone, tag 6 both */
	int one = 1;
	MPI_Group group;
	MPI_Comm own;
	sum += first_to_second(half);
	MPI_Comm_group(half, &group);
	MPI_Comm_create_group(half, group, 9, &own);
	sum += first_to_second(own);
	/* and on the halves merged (the evens first), tag 5 again: each even rank to its partner */
	MPI_Comm merged;
	int merged_size;
	MPI_Intercomm_merge(inter, color, &merged);
	MPI_Comm_size(merged, &merged_size);
	if (color == 0)
		MPI_Send(&one, 1, MPI_INT, merged_size / 2 + partner, 5, merged);
	else
		MPI_Recv(&got, 1, MPI_INT, partner, 5, merged, MPI_STATUS_IGNORE);
	sum += color == 1 ? got : 0;
	MPI_Comm_free(&merged);
	MPI_Comm_free(&own);
	MPI_Group_free(&group);
	MPI_Comm_free(&dup);
	MPI_Comm_free(&inter);
	MPI_Comm_free(&half);
	int total = 0;
	MPI_Reduce(&sum, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
	return total;
}

/* Two receives cancelled, then one that receives (`cancel`). */
static int cancel(int rank)
{
	int value = 0, cancelled = 0;
	if (rank == 0) {
		value = 7;
		usleep(50000);
		MPI_Send(&value, 1, MPI_INT, 1, 3, MPI_COMM_WORLD);
	} else if (rank == 1) {
		int any = 0, three = 0;
		MPI_Request requests[2];
		MPI_Status statuses[2];
		MPI_Irecv(&any, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD,
			  &requests[0]);
		MPI_Irecv(&three, 1, MPI_INT, 0, 3, MPI_COMM_WORLD, &requests[1]);
		MPI_Cancel(&requests[0]);
		MPI_Cancel(&requests[1]);
		MPI_Waitall(2, requests, statuses);
		for (int i = 0; i < 2; i++) {
			int flag = 0;
			MPI_Test_cancelled(&statuses[i], &flag);
			cancelled += flag;
		}
		MPI_Irecv(&value, 1, MPI_INT, 0, 3, MPI_COMM_WORLD, &requests[0]);
		MPI_Wait(&requests[0], MPI_STATUS_IGNORE);
	}
	int mine = cancelled * 10 + value, sum = 0;
	MPI_Reduce(&mine, &sum, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
	return sum;
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int rank, size, result = -1;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	const char *shape = argc > 1 ? argv[1] : "pipeline";
	if (argc > 2 && atoi(argv[2]) > 0 && atoi(argv[2]) <= 100)
		unit *= atoi(argv[2]);
	if (strcmp(shape, "imbalance") == 0)
		result = imbalance(rank);
	else if (strcmp(shape, "pipeline") == 0)
		result = pipeline(rank, size);
	else if (strcmp(shape, "bcast") == 0)
		result = bcast(rank);
	else if (strcmp(shape, "halo") == 0)
		result = halo(rank, size);
	else if (strcmp(shape, "pcontrol") == 0)
		result = pcontrol(rank);
	else if (strcmp(shape, "mprobe") == 0)
		result = mprobe(rank, size);
	else if (strcmp(shape, "rooted") == 0)
		result = rooted(rank);
	else if (strcmp(shape, "poll") == 0)
		result = poll(rank);
	else if (strcmp(shape, "others") == 0)
		result = others(rank, size);
	else if (strcmp(shape, "pairs") == 0)
		result = pairs(rank);
	else if (strcmp(shape, "overlap") == 0)
		result = overlap(rank);
	else if (strcmp(shape, "freed") == 0)
		result = freed(rank);
	else if (strcmp(shape, "many") == 0)
		result = many(rank);
	else if (strcmp(shape, "cancel") == 0)
		result = cancel(rank);
	else if (strcmp(shape, "intercomm") == 0)
		result = intercomm(rank);
	else if (strncmp(shape, "crossed", 7) == 0)
		result = crossed(rank, shape[7] == '-' ? shape + 8 : "");
	else if (strcmp(shape, "persistent") == 0)
		result = persistent(rank, size);
	else if (strcmp(shape, "erroneous") == 0)
		result = erroneous();
	if (rank == 0)
		printf("%s over %d ranks: %d\n", shape, size, result);
	if (getenv("POP_TIMES") != NULL && worked_ms > 0)
		fprintf(stderr, "%s: rank %d worked %.3f ms\n", shape, rank, worked_ms);
	MPI_Finalize();
	return 0;
}
