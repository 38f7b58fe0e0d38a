/* Task ids, handed to threads in blocks so that creating a task touches no shared counter. */
#include "executor.h"

#define TASK_IDS_PER_BLOCK 1024

static uint64_t ids_handed_out;

void tp_task_id_block(struct tp_thread *self)
{
	uint64_t end = __atomic_add_fetch(&ids_handed_out, TASK_IDS_PER_BLOCK, __ATOMIC_RELAXED);
	self->next_task_id = end - TASK_IDS_PER_BLOCK + 1; /* ids start at 1 */
	self->task_id_limit = end + 1;
}
